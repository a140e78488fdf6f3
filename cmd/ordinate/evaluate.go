package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms/quality"
)

// evaluateCommand is the evaluate stage's command. It prints the stage's
// summary on stdout unless --quiet, --summary, --out - or --block (a block
// has partial sums, not metrics) say otherwise.
func evaluateCommand() *cli.Command {
	cmd := stageCommand(quality.Stage{})
	run := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if !c.IsSet("summary") && !c.Bool("quiet") && c.String("out") != "-" && c.String("block") == "" {
			if err := c.Set("summary", "-"); err != nil {
				return err
			}
		}
		return run(c)
	}
	return cmd
}
