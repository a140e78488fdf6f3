package arrowio

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Keys of the arrow.Field metadata that the CSV reader sets on a string
// column in which more than half of the non-null values are numbers: such a
// column was most likely meant to be numeric, and these say where the first
// value that is not a number is, so that using the column as a feature can
// fail with ErrNotNumeric naming it.
const (
	MetaFirstTextRow   = "ordinate.first_text_row"   // 0-based input row, decimal
	MetaFirstTextValue = "ordinate.first_text_value" // the value as written, clipped by ClipValue
)

// csvNull reports whether a CSV value, trimmed of spaces, is null: the
// empty string, NA, N/A, null or NULL.
func csvNull(v string) bool {
	switch v {
	case "", "NA", "N/A", "null", "NULL":
		return true
	}
	return false
}

// parseCSVFloat parses a float64 column value. Values beyond the float64
// range are numbers too, and become ±Inf.
func parseCSVFloat(v string) (float64, bool) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return x, true
}

type csvKind int8

const (
	csvInt csvKind = iota
	csvUint
	csvFloat
	csvString
)

// csvInfer collects what pass 1 learns about one column.
type csvInfer struct {
	nonNull, nums int64
	notInt        bool   // some value is not an int64
	notUint       bool   // some value is not a uint64
	textRow       int64  // row of the first value that is not a number, or -1
	text          string // that value
}

func (c *csvInfer) add(raw string, row int64) {
	v := strings.TrimSpace(raw)
	if csvNull(v) {
		return
	}
	c.nonNull++
	if !c.notInt || !c.notUint {
		_, errInt := strconv.ParseInt(v, 10, 64)
		_, errUint := strconv.ParseUint(v, 10, 64)
		c.notInt = c.notInt || errInt != nil
		c.notUint = c.notUint || errUint != nil
		if errInt == nil || errUint == nil {
			c.nums++
			return
		}
	}
	if _, ok := parseCSVFloat(v); ok {
		c.nums++
		return
	}
	if c.textRow < 0 {
		c.textRow, c.text = row, ClipValue(raw)
	}
}

// field gives the column's Arrow field: int64 if every non-null value is an
// int64, uint64 if every one is a uint64 (integers above 2⁶³−1, ids and
// labels that float64 would merge), float64 if every one is a number (or
// there is none), else utf8.
func (c *csvInfer) field(name string) (arrow.Field, csvKind) {
	f := arrow.Field{Name: name, Nullable: true}
	switch {
	case c.nonNull == 0:
		f.Type = arrow.PrimitiveTypes.Float64
		return f, csvFloat
	case !c.notInt:
		f.Type = arrow.PrimitiveTypes.Int64
		return f, csvInt
	case !c.notUint:
		f.Type = arrow.PrimitiveTypes.Uint64
		return f, csvUint
	case c.nums == c.nonNull:
		f.Type = arrow.PrimitiveTypes.Float64
		return f, csvFloat
	}
	f.Type = arrow.BinaryTypes.String
	if 2*c.nums > c.nonNull {
		f.Metadata = arrow.NewMetadata(
			[]string{MetaFirstTextRow, MetaFirstTextValue},
			[]string{strconv.FormatInt(c.textRow, 10), c.text})
	}
	return f, csvString
}

// csvFile is what pass 1 learned about one file.
type csvFile struct {
	firstRow int64 // input row number of its first data row
	rows     int64 // its data rows
	idx      []int // positions of the selected columns in its records
}

// csvInput is the result of pass 1 over all files.
type csvInput struct {
	schema *arrow.Schema
	kinds  []csvKind
	files  map[string]csvFile
}

// newCSVReader returns a csv.Reader over r that checks the field count of
// every record against the header.
func newCSVReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	return cr
}

// csvError turns an error of encoding/csv at data row row (-1 for the
// header) into an *Error.
func csvError(name string, row int64, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: name, Row: row, Err: fmt.Errorf("%w: %v", ErrCorrupt, pe)}
	}
	return readError(name, row, err)
}

// readCSVHeader reads the header row of a file and checks its names.
func readCSVHeader(name string, cr *csv.Reader) ([]string, error) {
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: no header row", ErrEmpty)}
	}
	if err != nil {
		return nil, csvError(name, -1, err)
	}
	header := slices.Clone(rec)
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // a byte order mark
	seen := make(map[string]bool, len(header))
	for i, h := range header {
		switch {
		case h == "":
			return nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: header: column %d has no name", ErrCorrupt, i)}
		case seen[h]:
			return nil, &Error{File: name, Column: h, Row: -1, Err: fmt.Errorf("%w: header: the name appears twice", ErrCorrupt)}
		}
		seen[h] = true
	}
	return header, nil
}

// scanCSV is pass 1: it reads every file whole, checks headers and records,
// and infers the column types over all rows.
func scanCSV(ctx context.Context, files []string, cfg *readConfig) (*csvInput, error) {
	in := &csvInput{files: make(map[string]csvFile, len(files))}
	var (
		first  []string // header of the first file
		names  []string // selected columns
		infer  []csvInfer
		row    int64
		header []string
	)
	for fi, name := range files {
		f, _, err := openFile(name)
		if err != nil {
			return nil, err
		}
		cr := newCSVReader(bufio.NewReaderSize(f, 1<<16))
		header, err = readCSVHeader(name, cr)
		if err != nil {
			f.Close()
			return nil, err
		}
		var idx []int
		if fi == 0 {
			first = header
			s := arrow.NewSchema(stringFields(header), nil)
			if idx, err = columnIndices(name, s, cfg.columns); err != nil {
				f.Close()
				return nil, err
			}
			if idx == nil {
				idx = make([]int, len(header))
				for i := range idx {
					idx[i] = i
				}
			}
			names = make([]string, len(idx))
			for i, j := range idx {
				names[i] = header[j]
			}
			infer = make([]csvInfer, len(idx))
			for i := range infer {
				infer[i].textRow = -1
			}
		} else if idx, err = csvProjection(name, files[0], first, header, names, cfg.columns); err != nil {
			f.Close()
			return nil, err
		}
		start := row
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return nil, csvError(name, row, err)
			}
			for i, j := range idx {
				infer[i].add(rec[j], row)
			}
			row++
			if row%4096 == 0 {
				if err := ctx.Err(); err != nil {
					f.Close()
					return nil, err
				}
			}
		}
		f.Close()
		in.files[name] = csvFile{firstRow: start, rows: row - start, idx: idx}
	}
	fields := make([]arrow.Field, len(names))
	in.kinds = make([]csvKind, len(names))
	for i, n := range names {
		fields[i], in.kinds[i] = infer[i].field(n)
	}
	in.schema = arrow.NewSchema(fields, nil)
	return in, nil
}

// stringFields makes utf8 fields of names, for projection.
func stringFields(names []string) []arrow.Field {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String}
	}
	return fields
}

// csvProjection finds the selected columns in the header of a file after
// the first. Without a selection the headers must be equal; with one, the
// selected columns must be present (in any order).
func csvProjection(name, firstName string, first, header, names, columns []string) ([]int, error) {
	if len(columns) == 0 {
		s0 := arrow.NewSchema(stringFields(first), nil)
		if d := schemaDiff(s0, arrow.NewSchema(stringFields(header), nil)); d != "" {
			return nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: %s (as in %s)", ErrSchema, d, firstName)}
		}
	}
	pos := make(map[string]int, len(header))
	for i, h := range header {
		pos[h] = i
	}
	idx := make([]int, len(names))
	for i, n := range names {
		j, ok := pos[n]
		if !ok {
			return nil, &Error{File: name, Column: n, Row: -1, Err: ErrMissingColumn}
		}
		idx[i] = j
	}
	return idx, nil
}

// openCSV runs pass 1 and returns a reader for pass 2.
func openCSV(ctx context.Context, src Source, cfg *readConfig) (Reader, error) {
	in, err := scanCSV(ctx, src.Files, cfg)
	if err != nil {
		return nil, err
	}
	open := func(_ context.Context, name string) (partReader, error) {
		return openCSVPart(name, in, cfg)
	}
	return newMultiReader(ctx, src, in.schema, cfg, nil, open), nil
}

// csvPart is pass 2 over one file: it converts the records to batches.
type csvPart struct {
	name     string
	f        *os.File
	cr       *csv.Reader
	in       *csvInput
	idx      []int
	row      int64 // input row number of the next record
	left     int64 // rows pass 1 counted that are still to read
	batch    int
	builders []array.Builder
}

func openCSVPart(name string, in *csvInput, cfg *readConfig) (partReader, error) {
	f, _, err := openFile(name)
	if err != nil {
		return nil, err
	}
	info := in.files[name]
	p := &csvPart{name: name, f: f, in: in, idx: info.idx, row: info.firstRow, left: info.rows, batch: cfg.batchSize}
	p.cr = newCSVReader(bufio.NewReaderSize(f, 1<<16))
	if _, err := p.cr.Read(); err != nil { // the header, checked in pass 1
		f.Close()
		return nil, csvError(name, -1, err)
	}
	p.builders = make([]array.Builder, len(in.kinds))
	for i, k := range in.kinds {
		p.builders[i] = newCSVBuilder(cfg.mem, k)
	}
	return p, nil
}

func newCSVBuilder(mem memory.Allocator, k csvKind) array.Builder {
	switch k {
	case csvInt:
		return array.NewInt64Builder(mem)
	case csvUint:
		return array.NewUint64Builder(mem)
	case csvFloat:
		return array.NewFloat64Builder(mem)
	}
	return array.NewStringBuilder(mem)
}

func (p *csvPart) next(ctx context.Context) (arrow.RecordBatch, error) {
	// Room for the rows of this batch that pass 1 counted, not for a full
	// batch: a full batch of every column of a wide file of a few rows cost
	// 650 KB a column (the builders grow if the file grew since).
	if k := min(int64(p.batch), p.left); k > 0 {
		for _, b := range p.builders {
			b.Reserve(int(k))
		}
	}
	n := 0
	for n < p.batch {
		rec, err := p.cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(p.name, p.row, err)
		}
		for i, j := range p.idx {
			if err := p.append(i, rec[j]); err != nil {
				return nil, err
			}
		}
		n++
		p.row++
		p.left--
	}
	cols := make([]arrow.Array, len(p.builders))
	for i, b := range p.builders {
		cols[i] = b.NewArray()
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if n == 0 {
		return nil, nil
	}
	return array.NewRecordBatch(p.in.schema, cols, int64(n)), nil
}

// append converts one value of column i and appends it to its builder.
func (p *csvPart) append(i int, raw string) error {
	v := strings.TrimSpace(raw)
	if csvNull(v) {
		p.builders[i].AppendNull()
		return nil
	}
	switch b := p.builders[i].(type) {
	case *array.Int64Builder:
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return p.changed(i, raw)
		}
		b.Append(x)
	case *array.Uint64Builder:
		x, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return p.changed(i, raw)
		}
		b.Append(x)
	case *array.Float64Builder:
		x, ok := parseCSVFloat(v)
		if !ok {
			return p.changed(i, raw)
		}
		b.Append(x)
	case *array.StringBuilder:
		b.Append(raw)
	}
	return nil
}

// changed reports a value that pass 1 did not see: the file changed
// between the passes.
func (p *csvPart) changed(i int, raw string) error {
	f := p.in.schema.Field(i)
	return &Error{File: p.name, Column: f.Name, Row: p.row,
		Err: fmt.Errorf("%w: %q is not %s: the file changed while being read", ErrCorrupt, ClipValue(raw), f.Type)}
}

func (p *csvPart) close() error {
	for _, b := range p.builders {
		b.Release()
	}
	p.builders = nil
	return p.f.Close()
}
