package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "print a table's schema, row count, row groups and ordinate provenance",
		ArgsUsage: "FILE",
		UsageText: `ordinate inspect FILE

Reads only the footer of a Parquet file (no data), or the schema and batches of an
Arrow IPC file, or the header of a CSV file.

Examples:
   ordinate inspect e.parquet
   ordinate inspect bvp.model.parquet`,
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("inspect takes exactly one FILE, got %d arguments", c.NArg())
			}
			info, err := arrowio.Inspect(c.Context, c.Args().First())
			if err != nil {
				return badInput(err)
			}
			return info.WriteText(c.App.Writer)
		}),
	}
}
