package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// stageCommand makes the command of a stage: one flag per table role and
// per declared option (defaults, help, range and values from the
// declaration; earlier names as hidden flags), the common flags, and an
// action that runs the stage on files.
func stageCommand(s transforms.Stage) *cli.Command {
	info := s.Info()
	var flags []cli.Flag
	for _, r := range info.Inputs {
		if !r.Variadic {
			flags = append(flags, &cli.StringFlag{Name: r.Name, Usage: r.Help})
		}
	}
	for _, r := range info.Outputs {
		flags = append(flags, &cli.StringFlag{Name: r.Name, Usage: r.Help})
	}
	for _, o := range transforms.Declare(s.NewOptions()) {
		flags = append(flags, optionFlags(o)...)
	}
	if _, ok := transforms.Lookup(s.NewOptions(), "seed"); !ok {
		// A deterministic stage accepts --seed too, so that one pipeline
		// script can pass the same common flags to every stage.
		flags = append(flags, flagNoSeed)
	}
	flags = append(flags, flagThreads, flagQuiet, flagLogFormat, flagMemory)
	return &cli.Command{
		Name:      info.Name,
		Category:  info.Category,
		Usage:     info.Summary,
		UsageText: usageText(info),
		Flags:     flags,
		Action:    func(c *cli.Context) error { return runStage(c, s) },
	}
}

func usageText(info transforms.Info) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(info.Usage))
	if d := strings.TrimSpace(info.Doc); d != "" {
		b.WriteString("\n\n" + d)
	}
	if len(info.Examples) > 0 {
		b.WriteString("\n\nExamples:")
		for _, e := range info.Examples {
			b.WriteString("\n   " + e)
		}
	}
	return b.String()
}

// optionFlags are the flags of a declared option: a switch for a bool, a
// string flag parsed by the option itself otherwise; then one hidden flag
// per earlier name, which sets the same option.
func optionFlags(o transforms.Option) []cli.Flag {
	flag := func(name string, hidden bool) cli.Flag {
		if o.IsBool() {
			def, _ := strconv.ParseBool(o.Default)
			return &cli.BoolFlag{Name: name, Value: def, Usage: o.Usage(), Hidden: hidden}
		}
		// DefaultText shows the default as the user would type it (30,
		// not "30"); an empty default shows nothing.
		return &cli.StringFlag{Name: name, Value: o.Default, Usage: o.Usage(), DefaultText: o.Default, Hidden: hidden}
	}
	flags := []cli.Flag{flag(o.Name, false)}
	for _, a := range o.Aliases {
		flags = append(flags, flag(a, true))
	}
	return flags
}

// runStage runs s with the options and tables of the command line.
func runStage(c *cli.Context, s transforms.Stage) error {
	info := s.Info()
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	opts := s.NewOptions()
	for _, o := range transforms.Declare(opts) {
		name := ""
		for _, n := range append([]string{o.Name}, o.Aliases...) {
			if !c.IsSet(n) {
				continue
			}
			if name != "" {
				return usagef("--%s and --%s are the same option; give one", name, n)
			}
			name = n
		}
		if name == "" {
			continue
		}
		v := c.String(name)
		if o.IsBool() {
			v = strconv.FormatBool(c.Bool(name))
		}
		if err := o.Set(v); err != nil {
			return classify(c.Context, err)
		}
	}
	tables := &transforms.FileTables{Paths: map[string]string{}, Stdin: c.App.Reader, Stdout: c.App.Writer, Threads: c.Int("threads")}
	args := c.Args().Slice()
	for _, r := range info.Inputs {
		if r.Variadic {
			for _, a := range args {
				if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && a != "-" && hasFlag(c.Command, name) {
					return usagef("%s comes after the tables; put options before them: ordinate %s [options] TABLE…", a, info.Name)
				}
			}
			for i, a := range args {
				tables.Paths[fmt.Sprintf("%s#%d", r.Name, i)] = a
			}
			args = nil
			continue
		}
		if p := c.String(r.Name); p != "" {
			tables.Paths[r.Name] = p
		}
	}
	if len(args) > 0 {
		return usagef("unexpected arguments %q (options go before or after, as --name value)", args)
	}
	stdoutTaken := false
	for _, r := range info.Outputs {
		p := c.String(r.Name)
		if p == "" {
			continue
		}
		if err := checkOutput(r, p); err != nil {
			return err
		}
		tables.Paths[r.Name] = p
		stdoutTaken = stdoutTaken || p == "-"
	}
	showOutputs(c, info, tables, stdoutTaken)
	mem, err := memoryLimit(c)
	if err != nil {
		return err
	}
	env := &transforms.Env{Tables: tables, Log: log, Threads: c.Int("threads"), Version: toolVersion(), MemoryLimit: mem}
	if c.Bool("quiet") {
		env.Progress = transforms.NoProgress{}
	} else {
		rep := transforms.NewReporter(c.App.ErrWriter, log)
		defer rep.Finish()
		env.Progress = rep
	}
	return classify(c.Context, transforms.Run(c.Context, s, opts, env))
}

// showOutputs puts a stage's Show outputs (evaluate's summary) that the
// command line gave no place on stdout, unless --quiet or another output
// is written there.
func showOutputs(c *cli.Context, info transforms.Info, tables *transforms.FileTables, stdoutTaken bool) {
	if c.Bool("quiet") || stdoutTaken {
		return
	}
	for _, r := range info.Outputs {
		if r.Show && tables.Paths[r.Name] == "" {
			tables.Paths[r.Name] = "-"
			if tables.Shown == nil {
				tables.Shown = map[string]bool{}
			}
			tables.Shown[r.Name] = true
			return // one output on stdout
		}
	}
}

// checkOutput refuses an output path with an unknown extension or in a
// missing folder, before any work is done. That no output overwrites an
// input or another output is checked by transforms.Run (FileTables.Check),
// for every host.
func checkOutput(r transforms.Role, p string) error {
	if transforms.IsStream(p) {
		return nil
	}
	if r.Kind != transforms.File && arrowio.FormatOf(p) == arrowio.FormatUnknown {
		return usagef("--%s %q: unknown extension; use .parquet, .arrow, .feather, .csv or -", r.Name, p)
	}
	dir := filepath.Dir(p)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("--%s %q: folder %q does not exist", r.Name, p, dir)
	}
	return nil
}

// classify decides the exit code of a stage's error, in one place: bad data
// or options are input errors (exit 2), a cancellation or anything else a
// runtime failure (exit 1). Option names become flags.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	err = flagNames(err)
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return runtimeError{err}
	}
	// A missing input file is the caller's fault, like a bad path option.
	if transforms.IsInputError(err) || errors.Is(err, fs.ErrNotExist) {
		return inputError{err}
	}
	return runtimeError{err}
}

// flagNames rewrites the library's `option "x"` as the CLI's --x, and the
// tables it names by role (`the input "model"`, `the output "out"`) by
// their flags; the variadic inputs role#i are the (i+1)th table argument.
func flagNames(err error) error {
	var oe *transforms.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), "option "+strconv.Quote(oe.Option), "--"+oe.Option)
	msg = tableRole.ReplaceAllStringFunc(msg, func(m string) string {
		sub := tableRole.FindStringSubmatch(m)
		if sub[3] != "" {
			i, _ := strconv.Atoi(sub[3])
			return fmt.Sprintf("the %s table %d", sub[1], i+1)
		}
		return "the " + sub[1] + " --" + sub[2]
	})
	return cliMessage{msg: msg, err: err}
}

// tableRole matches a table named by its role in a library message.
var tableRole = regexp.MustCompile(`the (input|output) "([a-z][a-z0-9-]*)(?:#([0-9]+))?"`)

// cliMessage is err with the message shown on the command line.
type cliMessage struct {
	msg string
	err error
}

func (e cliMessage) Error() string { return e.msg }
func (e cliMessage) Unwrap() error { return e.err }

// newLogger makes the logger of --quiet and --log-format.
func newLogger(c *cli.Context) (*slog.Logger, error) {
	level := slog.LevelInfo
	if c.Bool("quiet") {
		level = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f := c.String("log-format"); f {
	case "", "text":
		return slog.New(slog.NewTextHandler(c.App.ErrWriter, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(c.App.ErrWriter, opts)), nil
	default:
		return nil, usagef("--log-format %q: want text or json", f)
	}
}

// hasFlag reports whether cmd has a flag of that name.
func hasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
