package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms"
	_ "github.com/ordinate/ordinate/transforms/all" // every stage and model kind
)

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "ordinate",
		Usage:   "supervised dimensionality reduction for Arrow, Parquet and CSV pipelines",
		Version: toolVersion(),
		Description: `ordinate reads a table, fits a published dimensionality-reduction method with
supervision from labels, and writes the embedding (id, kept columns, emb_0 … emb_{d-1})
as Parquet, Arrow or CSV, with the run's provenance in the file's metadata.

Exit codes: 0 success, 1 runtime failure, 2 usage error or bad input data.

Examples:
   ordinate demo --out demo
   ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --out emb.parquet --model-out bvp.model.parquet
   ordinate apply --model bvp.model.parquet --in testdata/ordinal/newthyroid.csv --out new-emb.parquet
   ordinate evaluate --embedding emb.parquet --in testdata/ordinal/newthyroid.csv --label label --out metrics.parquet
   ordinate plot --in emb.parquet --color label --out emb.svg
   ordinate report --out report.html emb.parquet metrics.parquet
   ordinate inspect emb.parquet`,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		EnableBashCompletion:   false,
		HideHelpCommand:        true,
		UseShortOptionHandling: false,
		ExitErrHandler:         func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return inputError{err}
		},
		// Without a command, the overview ("help CMD" is CMD --help); an
		// unknown command is a usage error (exit 2), not urfave's "No help
		// topic" (exit 3).
		Action: func(c *cli.Context) error {
			switch {
			case c.NArg() == 0:
				return cli.ShowAppHelp(c)
			case c.Args().First() == "help" && c.NArg() == 1:
				return cli.ShowAppHelp(c)
			case c.Args().First() == "help" && c.App.Command(c.Args().Get(1)) != nil:
				return cli.ShowCommandHelp(c, c.Args().Get(1))
			case c.Args().First() == "help":
				return usagef("unknown command %s; see ordinate --help", c.Args().Get(1))
			}
			return usagef("unknown command %s; see ordinate --help", c.Args().First())
		},
	}
	for _, s := range transforms.Stages() {
		app.Commands = append(app.Commands, stageCommand(s))
	}
	app.Commands = append(app.Commands, describeCommand(), inspectCommand(), sqlCommand(), demoCommand())
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
		if c.Category == "" {
			c.Category = "tools"
		}
	}
	return app
}
