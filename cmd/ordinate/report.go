package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "one self-contained HTML page with the plots, parameters and quality of output files",
		ArgsUsage: "FILES…",
		UsageText: `ordinate report --out report.html FILES…

For each embedding: its plot (coloured by its soft labels or label column), the
stage's parameters and figures, and the quality metrics of every metrics table
among FILES that was computed for it (ordinate evaluate --embedding). A Fisher
distance table becomes a heat map ordered by class; SCORE maps become one panel per
aspect, with δ from the aspects table written in the same run. The page has its
figures inline (SVG) and loads nothing from elsewhere.

Examples:
   ordinate report --out report.html ordinate-demo/*.parquet
   ordinate report --out r.html e.parquet metrics.parquet --title "weekly embedding"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output HTML file", Required: true},
			&cli.StringFlag{Name: "title", Value: "ordinate report", Usage: "page title"},
			flagQuiet, flagLogFormat,
		},
		Action: action(runReport),
	}
}

func runReport(c *cli.Context) error {
	e, err := newEnv(c, "report")
	if err != nil {
		return err
	}
	files := c.Args().Slice()
	if len(files) == 0 {
		return usagef("report needs at least one file")
	}
	for _, f := range files {
		if err := checkOutFile(f, c.String("out")); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	sum, err := report.Write(e.ctx, &buf, files, report.Options{
		Title: c.String("title"), Version: toolVersion(), Created: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
	})
	if err != nil {
		return badInput(err)
	}
	for _, s := range sum.Skipped {
		e.warn("not drawn: " + s)
	}
	if err := arrowio.WriteFileAtomic(c.String("out"), buf.Bytes()); err != nil {
		return runtimeError{err}
	}
	e.log.Info(fmt.Sprintf("report: %d sections, %d figures -> %s", sum.Sections, sum.Figures, c.String("out")))
	return nil
}
