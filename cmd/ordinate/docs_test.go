package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ordinate/ordinate/transforms"
)

// The documentation's tests: every sh example of README.md and docs/ runs
// as written, every stage page's option table is the registry's, every
// relative link resolves, and the README stays short.

var updateDocs = flag.Bool("update-docs", false, "rewrite the option tables of docs/stages/*.md from the stage registry")

// readmeMaxLines is the most lines README.md may have (issue 34): the rest
// belongs in docs/.
const readmeMaxLines = 300

// notRun is the line that keeps the next fenced block from running:
// <!-- not run: REASON -->.
var notRun = regexp.MustCompile(`^<!-- not run: (.+) -->$`)

// docsRoot is the repository root (tests run in cmd/ordinate).
func docsRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// docPages returns README.md and every Markdown page under docs/, as paths
// relative to the repository root, in a fixed order.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(pages[1:])
	return pages
}

// codeBlock is one fenced block of a Markdown page.
type codeBlock struct {
	lang   string // the info string's first word: sh, go, python, …
	body   string // the lines between the fences, each ending in "\n"
	line   int    // 1-based line of the opening fence
	notRun string // the reason of a <!-- not run: … --> line just before it
}

// firstLine is the block's first non-blank line, to name it in messages.
func (b codeBlock) firstLine() string {
	for _, l := range strings.Split(b.body, "\n") {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// codeBlocks parses the fenced blocks (``` at the start of a line, after
// at most three spaces) of a page. A <!-- not run: … --> line applies to
// the block whose opening fence follows it (blank lines between are
// allowed); one that precedes no block is an error.
func codeBlocks(text string) ([]codeBlock, error) {
	var blocks []codeBlock
	var cur *codeBlock
	var body strings.Builder
	pending, pendingLine := "", 0
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		fence := len(line)-len(trimmed) <= 3 && strings.HasPrefix(trimmed, "```")
		if cur != nil {
			if fence && strings.TrimSpace(trimmed) == "```" {
				cur.body = body.String()
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			body.WriteString(line + "\n")
			continue
		}
		switch {
		case fence:
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			lang := ""
			if len(info) > 0 {
				lang = info[0]
			}
			cur = &codeBlock{lang: lang, line: i + 1, notRun: pending}
			body.Reset()
			pending = ""
		case notRun.MatchString(strings.TrimSpace(line)):
			if pending != "" {
				return nil, fmt.Errorf("line %d: a second <!-- not run --> line before any block (the first is on line %d)", i+1, pendingLine)
			}
			pending, pendingLine = notRun.FindStringSubmatch(strings.TrimSpace(line))[1], i+1
		case strings.TrimSpace(line) != "" && pending != "":
			return nil, fmt.Errorf("line %d: <!-- not run --> is followed by text, not by a fenced block", pendingLine)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the block is never closed", cur.line)
	}
	if pending != "" {
		return nil, fmt.Errorf("line %d: <!-- not run --> is followed by no block", pendingLine)
	}
	return blocks, nil
}

// tail keeps the end of a long output.
func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return "…" + string(b[len(b)-n:])
}

// TestDocsExamples runs every sh block of README.md and docs/**/*.md that is
// not marked <!-- not run: … -->, with bash -euo pipefail, the ordinate
// built from this tree first on PATH, and builds and runs every go block
// that is a whole program. Each page runs in a fresh folder that
// holds a link testdata to the repository's testdata/, its blocks in order
// (a block may use the files an earlier block of the page wrote).
func TestDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ordinate and runs every example of the documentation (about a minute); not with -short")
	}
	for _, tool := range []string{"go", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the documentation's shell examples need %s on PATH (%v); TestHelpExamplesRun still runs every --help example in-process", tool, err)
		}
	}
	root := docsRoot(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "ordinate"), "./cmd/ordinate")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ordinate: %v\n%s", err, out)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, page := range docPages(t, root) {
		t.Run(page, func(t *testing.T) {
			t.Parallel() // each page in its own folder
			text, err := os.ReadFile(filepath.Join(root, page))
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := codeBlocks(string(text))
			if err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			dir := t.TempDir()
			if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")); err != nil {
				t.Fatal(err)
			}
			for _, b := range blocks {
				if b.lang == "go" && b.notRun == "" && strings.HasPrefix(b.body, "package main") {
					runGoExample(t, root, dir, page, b)
					continue
				}
				if b.lang != "sh" || b.notRun != "" {
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.body)
				cmd.Dir, cmd.Env = dir, env
				start := time.Now()
				out, err := cmd.CombinedOutput()
				cancel()
				if err != nil {
					t.Fatalf("%s:%d: the block %q failed: %v\n%s", page, b.line, b.firstLine(), err, tail(out, 8000))
				}
				t.Logf("%s:%d: %q ran in %.1f s", page, b.line, b.firstLine(), time.Since(start).Seconds())
			}
		})
	}
}

// runGoExample builds a go block that is a whole program (package main)
// against this tree and runs it in the page's folder dir: the Go examples
// of the documentation compile and work as written.
func runGoExample(t *testing.T, root, dir, page string, b codeBlock) {
	t.Helper()
	src, err := os.MkdirTemp(root, "_docs-example-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(src) })
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(b.body), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "example")
	build := exec.Command("go", "build", "-o", exe, "./"+filepath.Base(src))
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s:%d: the Go example does not build: %v\n%s", page, b.line, err, tail(out, 8000))
	}
	run := exec.Command(exe)
	run.Dir = dir
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%s:%d: the Go example failed: %v\n%s", page, b.line, err, tail(out, 8000))
	}
}

// The markers around a generated option table.
var (
	optionsBegin   = regexp.MustCompile(`(?m)^<!-- BEGIN OPTIONS ([a-z0-9_-]+) -->$`)
	optionsEndLine = "<!-- END OPTIONS -->"
	optionsEnd     = "\n" + optionsEndLine // the end marker, on a line of its own
)

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "\n", " ").Replace(s)
}

// optionsTable is the Markdown table of a stage's declared options, as the
// registry has them: the name with its earlier names, the default, and the
// help with its range and values (Option.Usage).
func optionsTable(s transforms.Stage) string {
	var b strings.Builder
	b.WriteString("| option | default | meaning |\n|---|---|---|\n")
	for _, o := range transforms.Declare(s.NewOptions()) {
		name := "`--" + o.Name + "`"
		if len(o.Aliases) > 0 {
			name += " (also `--" + strings.Join(o.Aliases, "`, `--") + "`)"
		}
		def := ""
		if o.Default != "" {
			def = "`" + strings.ReplaceAll(o.Default, "|", `\|`) + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, def, cell(o.Usage()))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// optionsSection is what goes between the markers' lines: the table, with
// a blank line on either side so that Markdown reads it as a table.
func optionsSection(s transforms.Stage) string {
	return "\n\n" + optionsTable(s) + "\n"
}

// TestDocsOptions: the option table of every page (between <!-- BEGIN
// OPTIONS name --> and <!-- END OPTIONS -->) is the one the registry gives
// for stage name, and every registered stage has one. With -update-docs it
// rewrites the tables.
func TestDocsOptions(t *testing.T) {
	root := docsRoot(t)
	documented := map[string]string{}
	for _, page := range docPages(t, root) {
		path := filepath.Join(root, page)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		var out strings.Builder
		rest := text
		for {
			loc := optionsBegin.FindStringSubmatchIndex(rest)
			if loc == nil {
				out.WriteString(rest)
				break
			}
			name := rest[loc[2]:loc[3]]
			after := rest[loc[1]:]
			end := strings.Index(after, optionsEnd)
			if end < 0 {
				t.Fatalf("%s: <!-- BEGIN OPTIONS %s --> has no line %s after it", page, name, optionsEndLine)
			}
			if next := optionsBegin.FindStringIndex(after[:end]); next != nil {
				t.Fatalf("%s: <!-- BEGIN OPTIONS %s --> is not closed before the next BEGIN", page, name)
			}
			s, ok := transforms.LookupStage(name)
			if !ok {
				t.Errorf("%s: <!-- BEGIN OPTIONS %s -->: no stage %q in the registry", page, name, name)
				out.WriteString(rest[:loc[1]+end+len(optionsEnd)])
				rest = after[end+len(optionsEnd):]
				continue
			}
			if _, seen := documented[name]; !seen {
				documented[name] = page
			}
			want := optionsSection(s)
			if got := after[:end]; got != want && !*updateDocs {
				t.Errorf("%s: the options of %s differ from the registry's; run go test ./cmd/ordinate -run TestDocsOptions -update-docs\nwant:%s", page, name, want)
			}
			out.WriteString(rest[:loc[1]] + want + optionsEnd)
			rest = after[end+len(optionsEnd):]
		}
		if *updateDocs && out.String() != text {
			if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the option tables of %s", page)
		}
	}
	for _, s := range transforms.Stages() {
		name := s.Info().Name
		if _, ok := documented[name]; !ok {
			t.Errorf("stage %s has no option table in the docs: add a page docs/stages/%s.md with the lines <!-- BEGIN OPTIONS %s --> and %s, then run go test ./cmd/ordinate -run TestDocsOptions -update-docs", name, name, name, optionsEndLine)
		}
	}
}

// TestReadmeLength: README.md says what ordinate is and how to start, in at
// most readmeMaxLines lines; the rest is in docs/.
func TestReadmeLength(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(docsRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(text), "\n")
	if len(text) > 0 && text[len(text)-1] != '\n' {
		lines++
	}
	if lines > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move the details to docs/", lines, readmeMaxLines)
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown page (outside fenced blocks): lower case, punctuation other
// than - and _ dropped, spaces as -, repeats numbered -1, -2, ….
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := count[a]; n > 0 {
			count[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			count[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}

// mdLink matches the target of an inline Markdown link or image.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks: every relative link of README.md and docs/ names a file
// of the repository and, for a Markdown page, an anchor it has.
func TestDocsLinks(t *testing.T) {
	root := docsRoot(t)
	for _, page := range docPages(t, root) {
		raw, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		// Links in fenced blocks are code, not links.
		var prose strings.Builder
		inFence := false
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
				inFence = !inFence
				continue
			}
			if !inFence {
				prose.WriteString(line + "\n")
			}
		}
		for _, m := range mdLink.FindAllStringSubmatch(prose.String(), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(root, page) // a bare #anchor is on the page itself
			if file != "" {
				path = filepath.Join(filepath.Dir(filepath.Join(root, page)), filepath.FromSlash(file))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(text))[anchor] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, target, file, anchor)
			}
		}
	}
}
