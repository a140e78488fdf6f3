package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// examplesOf returns the example command lines of a command's help: the
// lines after "Examples:", with backslash continuations joined.
func examplesOf(usage string) []string {
	_, after, ok := strings.Cut(usage, "Examples:")
	if !ok {
		return nil
	}
	var out []string
	var cur string
	for _, line := range strings.Split(after, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		out = append(out, cur+line)
		cur = ""
	}
	return out
}

// shellWords splits a command line as a POSIX shell would for the simple
// forms the examples use: words, single and double quotes, backslash
// escapes.
func shellWords(s string) ([]string, bool) {
	var words []string
	var b strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, true
}

// runExample runs one example line: `ordinate ARGS [< IN] [> OUT]`, or
// `cat IN | ordinate ARGS [> OUT]`. Paths under testdata/ are the
// repository's; everything else is relative to the test's folder.
func runExample(t *testing.T, root, line string) {
	t.Helper()
	words, ok := shellWords(line)
	if !ok {
		t.Fatalf("example %q: unbalanced quotes", line)
	}
	var stdinPath, stdoutPath string
	if len(words) > 2 && words[0] == "cat" && words[2] == "|" {
		stdinPath, words = words[1], words[3:]
	}
	var args []string
	for i := 0; i < len(words); i++ {
		switch words[i] {
		case "<":
			stdinPath = words[i+1]
			i++
		case ">":
			stdoutPath = words[i+1]
			i++
		default:
			w := words[i]
			if strings.Contains(w, "testdata/") {
				w = strings.ReplaceAll(w, "testdata/", filepath.Join(root, "testdata")+"/")
			}
			args = append(args, w)
		}
	}
	if len(args) == 0 || args[0] != "ordinate" {
		t.Fatalf("example %q does not run ordinate", line)
	}
	var stdin bytes.Buffer
	if stdinPath != "" {
		b, err := os.ReadFile(stdinPath)
		if err != nil {
			t.Fatalf("example %q: %v", line, err)
		}
		stdin.Write(b)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdin, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("example %q: exit %d\n%s", line, code, stderr.String())
	}
	if stdoutPath != "" {
		write(t, stdoutPath, stdout.String())
	}
}

// Every example in every command's --help runs as written, in order, on
// bundled data.
func TestHelpExamplesRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	app := newApp(nil, &bytes.Buffer{}, &bytes.Buffer{})
	lists := map[string][]string{"": examplesOf(app.Description)}
	for _, c := range app.Commands {
		lists[c.Name] = examplesOf(c.UsageText)
		if len(lists[c.Name]) == 0 {
			t.Errorf("%s: --help has no examples", c.Name)
		}
	}
	for name, examples := range lists {
		if name == "" {
			name = "overview"
		}
		t.Run(name, func(t *testing.T) {
			if testing.Short() && (name == "demo" || name == "overview") {
				t.Skip("-short: these examples run the whole demo (about 15 s); go test without -short (as CI does) runs them")
			}
			t.Chdir(t.TempDir())
			for _, line := range examples {
				runExample(t, root, line)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`ordinate pca --in a.csv`, []string{"ordinate", "pca", "--in", "a.csv"}},
		{`ordinate pca --features 'x*' --title "A b"`, []string{"ordinate", "pca", "--features", "x*", "--title", "A b"}},
		{`a\ b c`, []string{"a b", "c"}},
	}
	for _, tc := range tests {
		got, ok := shellWords(tc.in)
		if !ok || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("shellWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
