package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms"
)

// describeCommand prints the library's self-description (transforms.Describe):
// every stage with its options, inputs and outputs, and every model kind,
// plus the flags the CLI adds to every stage.
func describeCommand() *cli.Command {
	return &cli.Command{
		Name:  "describe",
		Usage: "describe every stage, its options, inputs and outputs, and the model kinds (--json for front ends)",
		UsageText: `ordinate describe [--json] [STAGE…]

The same account the commands' --help is generated from, as text or, with --json,
as one JSON document with a schema version (schema_version): for each stage its
category, summary, inputs and outputs (table kinds), and options (name, snake_case
key, type, default, help, range, values, earlier names). Front ends build on it:
the Python package checks keyword options against it. With STAGE names, only
those stages.

Examples:
   ordinate describe
   ordinate describe --json
   ordinate describe --json tsne`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON (schema_version " + fmt.Sprint(transforms.DescriptionVersion) + ")"},
		},
		Action: action(runDescribe),
	}
}

func runDescribe(c *cli.Context) error {
	d := describe()
	if c.NArg() > 0 {
		var keep []transforms.StageDescription
		for _, name := range c.Args().Slice() {
			found := false
			for _, s := range d.Stages {
				if s.Name == name {
					keep, found = append(keep, s), true
				}
			}
			if !found {
				return usagef("describe: no stage %q; see ordinate describe", name)
			}
		}
		d.Stages = keep
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	for _, s := range d.Stages {
		fmt.Fprintf(w, "%s\t%s\t%s\n", s.Name, s.Category, s.Summary)
		if c.NArg() == 0 {
			continue
		}
		for _, o := range s.Options {
			names := "--" + o.Name
			if len(o.Aliases) > 0 {
				names += " (also --" + strings.Join(o.Aliases, ", --") + ")"
			}
			fmt.Fprintf(w, "  %s\t%s\tdefault %v\t%s\n", names, o.Type, o.Default, o.Usage)
		}
	}
	if c.NArg() == 0 {
		fmt.Fprintln(w)
		for _, k := range d.ModelKinds {
			stage := k.Stage
			if stage == "" {
				stage = "any stage"
			}
			fmt.Fprintf(w, "model %s\t%s\t%s\n", k.Kind, stage, k.Doc)
		}
	}
	return w.Flush()
}

// describe is the library's description with the flags the CLI adds to
// every stage.
func describe() transforms.Description {
	d := transforms.Describe(toolVersion())
	for _, f := range []cli.Flag{flagThreads, flagQuiet, flagLogFormat, flagMemory} {
		d.HostOptions = append(d.HostOptions, hostOption(f))
	}
	return d
}

func hostOption(f cli.Flag) transforms.OptionDescription {
	name := f.Names()[0]
	o := transforms.OptionDescription{Name: name, Key: strings.ReplaceAll(name, "-", "_")}
	switch f := f.(type) {
	case *cli.IntFlag:
		o.Type, o.Default, o.Help = "int", f.Value, f.Usage
	case *cli.BoolFlag:
		o.Type, o.Default, o.Help = "bool", f.Value, f.Usage
	case *cli.StringFlag:
		o.Type, o.Default, o.Help = "string", f.Value, f.Usage
	}
	o.Usage = o.Help
	return o
}
