package main

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "print a table's schema, row count, row groups and ordinate provenance",
		ArgsUsage: "FILE|DIR|GLOB",
		UsageText: `ordinate inspect [--json] [--checksum] FILE|DIR|GLOB

Reads only the footer of a Parquet file (no data), or the schema and batches of an
Arrow IPC file or stream (a stream without its end-of-stream marker is reported as
truncated), or the rows of a CSV file. A directory or a glob ('parts/*.parquet')
is described as --in reads it: its part files with their rows and sizes, the total
rows, the schema they share, and the provenance of the first part. --json prints
the same as one JSON object (for scripts); --checksum also reads the data and adds
the sum of every float64 column named emb_*, which another engine can recompute to
check it read the same numbers.

Examples:
   ordinate inspect testdata/similarity/voting.parquet
   ordinate inspect --json --checksum testdata/similarity/voting.parquet
   ordinate inspect testdata/zoo`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of text"},
			&cli.BoolFlag{Name: "checksum", Usage: "with --json: add the sums of the emb_* columns (reads the data)"},
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("inspect takes exactly one FILE, DIR or GLOB, got %d arguments", c.NArg())
			}
			info, err := arrowio.Inspect(c.Context, c.Args().First())
			if err != nil {
				return badInput(err)
			}
			if !c.Bool("json") {
				return info.WriteText(c.App.Writer)
			}
			out := info.Summary()
			if c.Bool("checksum") {
				if out.Checksums, err = arrowio.ColumnSums(c.Context, info.Path, table.EmbeddingPrefix); err != nil {
					return badInput(err)
				}
			}
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}),
	}
}
