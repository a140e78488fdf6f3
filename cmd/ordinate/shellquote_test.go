package main

import "testing"

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"--features", "--features"},
		{"x*", "'x*'"},
		{"s_*", "'s_*'"},
		{"/tmp/a b/c.parquet", "'/tmp/a b/c.parquet'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"5,10,30", "5,10,30"},
	}
	for _, tc := range tests {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
