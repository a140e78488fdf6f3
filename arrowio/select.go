package arrowio

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Plan is a Selection resolved against a schema: it turns record batches of
// that schema into Frames (Extract). A Plan is read-only after Compile and
// may be used from several goroutines.
type Plan struct {
	sel    Selection
	schema *arrow.Schema
	src    Source
	mem    memory.Allocator
	// threads fill X side by side (WithFrameThreads).
	threads int

	idIdx  int // -1: synthesised "row"
	idName string

	featIdx   []int    // scalar feature columns
	featNames []string // their names
	listIdx   int      // the list feature column, or -1
	listName  string
	listLen   int // fixed_size_list length, or -1 for a variable list

	labelIdx int // -1: none

	softIdx   []int
	softNames []string

	keepIdx    []int
	keepFields []arrow.Field

	excluded map[int]bool // columns Exclude matches
}

// FrameOption configures Compile and ReadFrame.
type FrameOption func(*frameConfig)

type frameConfig struct {
	mem     memory.Allocator
	threads int
}

// WithFrameThreads sets how many goroutines fill a frame's X from a batch's
// feature columns (default 1; n ≤ 0: GOMAXPROCS, as parallel.For).
// Each fills whole blocks of rows, so X is the same for any n.
func WithFrameThreads(n int) FrameOption {
	return func(c *frameConfig) { c.threads = n }
}

// WithFrameAllocator sets the allocator for the Arrow arrays of the Frames
// (synthesised ids, concatenated id and Keep columns). The default is
// memory.DefaultAllocator.
func WithFrameAllocator(mem memory.Allocator) FrameOption {
	return func(c *frameConfig) {
		if mem != nil {
			c.mem = mem
		}
	}
}

// rowColumn is the name of the synthesised id column.
const rowColumn = "row"

// Compile resolves the selection against schema; src names the input in
// error messages (src.Path). Errors are *Error with File src.Path, the
// column at fault and Row -1, wrapping ErrMissingColumn, ErrColumnType or
// ErrSelection; a text column that the CSV reader marked as mostly numeric
// (field metadata MetaFirstTextRow) gives ErrNotNumeric with the row and
// the text of its first non-number.
//
// Names are resolved thus:
//
//   - A name is an exact column name when the schema has a column of that
//     name; otherwise, when it holds one of the characters *?[\ it is a
//     path.Match pattern. An exact name that does not exist is
//     ErrMissingColumn (the message lists the columns), and so is a pattern
//     that matches no column.
//   - Lists (Features, SoftLabels, Keep) are expanded entry by entry in the
//     given order; a pattern expands to its matches in schema order. A
//     column named twice is taken once, at its first place.
//   - Patterns skip the columns that already have another role (the id, the
//     label, the soft labels) without complaint; naming such a column
//     explicitly as a feature or soft label is ErrSelection.
//   - Features must be numeric: integers, floats, decimals, or dictionaries
//     of those; or exactly one list, large list or fixed-size list column
//     of numbers, whose elements become the features "name[0]", "name[1]", …
//   - nil Features selects every numeric column that is not the id, the
//     label, a soft label or a Keep column, in schema order, including the
//     mostly numeric text columns (so that they fail with ErrNotNumeric
//     instead of vanishing). When that finds no column but the table has
//     exactly one numeric list column, the list is taken.
//   - Exclude (names and globs; every entry must match a column) leaves
//     columns out of the features: out of the nil-Features set, and out
//     of what the patterns in Features match. A column that Features
//     names exactly and Exclude matches is ErrSelection: the options
//     contradict each other, and neither silently wins.
//   - The features, the kept columns and the soft labels must each have
//     distinct names: a schema that holds a name twice, reached through a
//     pattern or the default set, is ErrSelection, since models, outputs
//     and later stages find columns by name.
//   - nil Keep keeps the label and the soft-label columns; an empty non-nil
//     Keep keeps nothing. Keep never repeats the id column, which every
//     output carries anyway.
//
// WithFrameAllocator sets the allocator of the Arrow arrays that Extract
// makes; the default is memory.DefaultAllocator.
func (s Selection) Compile(schema *arrow.Schema, src Source, opts ...FrameOption) (*Plan, error) {
	cfg := frameConfig{mem: memory.DefaultAllocator, threads: 1}
	for _, o := range opts {
		o(&cfg)
	}
	if s.OnInvalid != "" && s.OnInvalid != InvalidError && s.OnInvalid != InvalidDrop {
		return nil, selErr(src, "", fmt.Errorf("%w: unknown OnInvalid value %q", ErrSelection, s.OnInvalid))
	}
	c := compiler{schema: schema, src: src, role: make(map[int]string)}
	p := &Plan{sel: s, schema: schema, src: src, mem: cfg.mem, threads: cfg.threads, idIdx: -1, idName: rowColumn, listIdx: -1, labelIdx: -1}

	if s.ID != "" {
		i, err := c.exact(s.ID)
		if err != nil {
			return nil, err
		}
		p.idIdx, p.idName = i, s.ID
		c.role[i] = "id"
	}
	if s.Label != "" {
		i, err := c.exact(s.Label)
		if err != nil {
			return nil, err
		}
		if err := c.claim(i, "label"); err != nil {
			return nil, err
		}
		if !isLabelType(schema.Field(i).Type) {
			if err := c.notNumeric(i); err != nil {
				return nil, err
			}
			return nil, c.typeErr(i, "a label must be integer, float, decimal or string")
		}
		p.labelIdx = i
	}
	if s.SoftLabels != nil {
		idx, err := c.expand(s.SoftLabels, "soft label")
		if err != nil {
			return nil, err
		}
		for _, i := range idx {
			if !IsNumeric(schema.Field(i).Type) {
				if err := c.notNumeric(i); err != nil {
					return nil, err
				}
				return nil, c.typeErr(i, "soft labels must be numeric")
			}
			c.role[i] = "soft label"
		}
		if len(idx) < 2 {
			return nil, selErr(src, strings.Join(s.SoftLabels, ","),
				fmt.Errorf("%w: soft labels need at least 2 columns, got %d", ErrSelection, len(idx)))
		}
		if err := c.uniqueNames(idx, "soft label"); err != nil {
			return nil, err
		}
		p.softIdx = idx
		p.softNames = c.names(idx)
	}
	if err := p.compileKeep(&c); err != nil {
		return nil, err
	}
	if err := p.compileFeatures(&c); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Plan) compileKeep(c *compiler) error {
	s := p.sel
	var idx []int
	if s.Keep == nil {
		if p.labelIdx >= 0 {
			idx = append(idx, p.labelIdx)
		}
		idx = append(idx, p.softIdx...)
	} else {
		for _, name := range s.Keep {
			m, err := c.match(name)
			if err != nil {
				return err
			}
			n := 0
			for _, i := range m.idx {
				switch {
				case i == p.idIdx:
					continue // the id is always passed through
				case p.idIdx < 0 && c.schema.Field(i).Name == rowColumn:
					if m.exact {
						return selErr(c.src, rowColumn, fmt.Errorf(
							"%w: keep column %q clashes with the synthesised id column; select it as the id instead",
							ErrSelection, rowColumn))
					}
					continue
				}
				n++
				if !slices.Contains(idx, i) {
					idx = append(idx, i)
				}
			}
			if n == 0 && !m.exact {
				return selErr(c.src, name, fmt.Errorf("%w: pattern matches only the id column", ErrMissingColumn))
			}
		}
	}
	if err := c.uniqueNames(idx, "kept"); err != nil {
		return err
	}
	p.keepIdx = idx
	for _, i := range idx {
		p.keepFields = append(p.keepFields, c.schema.Field(i))
	}
	return nil
}

func (p *Plan) compileFeatures(c *compiler) error {
	s := p.sel
	if s.NoFeatures {
		if len(s.Features) > 0 {
			return selErr(c.src, "", fmt.Errorf("%w: features given together with NoFeatures", ErrSelection))
		}
		return nil
	}
	if err := p.compileExclude(c); err != nil {
		return err
	}
	var idx []int
	if s.Features == nil {
		idx = p.defaultFeatures(c)
	} else {
		var err error
		if idx, err = c.expand(s.Features, "feature"); err != nil {
			return err
		}
	}
	if err := c.uniqueNames(idx, "feature"); err != nil {
		return err
	}
	for _, i := range idx {
		f := c.schema.Field(i)
		if elem, ok := listElem(f.Type); ok {
			if len(idx) > 1 {
				return selErr(c.src, f.Name, fmt.Errorf(
					"%w: a list column must be the only feature column (%d selected)", ErrSelection, len(idx)))
			}
			if !IsNumeric(elem) {
				return c.typeErr(i, "list features must hold numbers")
			}
			p.listIdx, p.listName, p.listLen = i, f.Name, -1
			if fs, ok := f.Type.(*arrow.FixedSizeListType); ok {
				p.listLen = int(fs.Len())
				if p.listLen == 0 {
					return selErr(c.src, f.Name, fmt.Errorf("%w: fixed-size list of length 0", ErrSelection))
				}
			}
			return nil
		}
		if !IsNumeric(f.Type) {
			if err := c.notNumeric(i); err != nil {
				return err
			}
			return c.typeErr(i, "features must be numeric")
		}
	}
	if len(idx) == 0 {
		return selErr(c.src, "", fmt.Errorf("%w: no feature columns (columns: %s)", ErrSelection, c.available()))
	}
	p.featIdx = idx
	p.featNames = c.names(idx)
	return nil
}

// compileExclude resolves Exclude: every entry must name or match a
// column (a name held by several columns excludes them all).
func (p *Plan) compileExclude(c *compiler) error {
	if len(p.sel.Exclude) == 0 {
		return nil
	}
	p.excluded = make(map[int]bool)
	for _, name := range p.sel.Exclude {
		idx := c.schema.FieldIndices(name)
		if len(idx) == 0 {
			if !strings.ContainsAny(name, `*?[\`) {
				return selErr(c.src, name, fmt.Errorf("%w: excluded column not found (columns: %s)", ErrMissingColumn, c.available()))
			}
			m, err := c.match(name)
			if err != nil {
				return err
			}
			idx = m.idx
		}
		for _, i := range idx {
			p.excluded[i] = true
		}
	}
	c.excluded = p.excluded
	return nil
}

// defaultFeatures applies the nil-Features rule.
func (p *Plan) defaultFeatures(c *compiler) []int {
	var idx, lists []int
	for i, f := range c.schema.Fields() {
		if c.role[i] != "" || slices.Contains(p.keepIdx, i) || p.excluded[i] {
			continue
		}
		switch {
		case IsNumeric(f.Type) || mostlyNumeric(f):
			idx = append(idx, i)
		default:
			if elem, ok := listElem(f.Type); ok && IsNumeric(elem) {
				lists = append(lists, i)
			}
		}
	}
	if len(idx) == 0 && len(lists) == 1 {
		return lists
	}
	return idx
}

// FeatureNames gives the feature names the plan produces, or nil for a
// variable-length list column, whose length is known only from the data.
func (p *Plan) FeatureNames() []string {
	if p.listIdx >= 0 {
		if p.listLen < 0 {
			return nil
		}
		return listNames(p.listName, p.listLen)
	}
	return slices.Clone(p.featNames)
}

// Omitted is a column that a plan does not take as a feature, and why.
type Omitted struct {
	Name string
	Why  string
}

// LeftOut lists the columns of the schema that are not features, in schema
// order, each with the reason: the id, the label, a soft label, kept
// (passed through), excluded (Exclude), not numeric (with its type), or,
// with explicit Features, not selected. Hosts show it so that nobody has
// to guess what a default feature set left out.
func (p *Plan) LeftOut() []Omitted {
	feat := make(map[int]bool, len(p.featIdx)+1)
	for _, i := range p.featIdx {
		feat[i] = true
	}
	if p.listIdx >= 0 {
		feat[p.listIdx] = true
	}
	var out []Omitted
	for i, f := range p.schema.Fields() {
		var why string
		switch {
		case feat[i]:
			continue
		case i == p.idIdx:
			why = "is the id"
		case i == p.labelIdx:
			why = "is the label"
		case slices.Contains(p.softIdx, i):
			why = "is a soft label"
		case slices.Contains(p.keepIdx, i):
			why = "is kept (passed through)"
		case p.excluded[i]:
			why = "is excluded"
		case isList(f.Type) && p.sel.Features == nil:
			why = "is a list column (taken by default only when no column is numeric)"
		case !IsNumeric(f.Type):
			why = "is not numeric (" + f.Type.String() + ")"
		case p.sel.Features != nil:
			why = "is not in the features"
		default:
			why = "is not used"
		}
		out = append(out, Omitted{Name: f.Name, Why: why})
	}
	return out
}

// FeatureList gives the list column the features come from, or "".
func (p *Plan) FeatureList() string { return p.listName }

// IDField gives the id column as it appears in Frames: the selected column,
// or an int64 column "row" when the id is synthesised.
func (p *Plan) IDField() arrow.Field {
	if p.idIdx < 0 {
		return arrow.Field{Name: rowColumn, Type: arrow.PrimitiveTypes.Int64}
	}
	return p.schema.Field(p.idIdx)
}

// KeepFields gives the pass-through columns in selection order.
func (p *Plan) KeepFields() []arrow.Field { return slices.Clone(p.keepFields) }

func listNames(name string, d int) []string {
	names := make([]string, d)
	for k := range names {
		names[k] = name + "[" + strconv.Itoa(k) + "]"
	}
	return names
}

// compiler resolves names against a schema and tracks column roles.
type compiler struct {
	schema *arrow.Schema
	src    Source
	role   map[int]string // column index -> "id", "label", "soft label"
	// excluded are the columns Exclude matches, set before the features
	// are expanded.
	excluded map[int]bool
}

// matched is the result of resolving one selection entry.
type matched struct {
	idx   []int // in schema order for a pattern
	exact bool  // the entry named a column exactly
}

func (c *compiler) exact(name string) (int, error) {
	idx := c.schema.FieldIndices(name)
	switch len(idx) {
	case 0:
		return -1, c.missing(name)
	case 1:
		return idx[0], nil
	}
	return -1, selErr(c.src, name, fmt.Errorf("%w: %d columns have this name", ErrSelection, len(idx)))
}

// match resolves a name or pattern.
func (c *compiler) match(name string) (matched, error) {
	if c.schema.HasField(name) || !strings.ContainsAny(name, `*?[\`) {
		i, err := c.exact(name)
		if err != nil {
			return matched{}, err
		}
		return matched{idx: []int{i}, exact: true}, nil
	}
	var m matched
	for i, f := range c.schema.Fields() {
		ok, err := path.Match(name, f.Name)
		if err != nil {
			return matched{}, selErr(c.src, name, fmt.Errorf("%w: %v", ErrSelection, err))
		}
		if ok {
			m.idx = append(m.idx, i)
		}
	}
	if len(m.idx) == 0 {
		return matched{}, selErr(c.src, name, fmt.Errorf("%w: pattern matches no column (columns: %s)",
			ErrMissingColumn, c.available()))
	}
	return m, nil
}

// expand resolves a list of names and patterns for a role, skipping columns
// that already have a role when they come from a pattern.
func (c *compiler) expand(names []string, role string) ([]int, error) {
	var idx []int
	for _, name := range names {
		m, err := c.match(name)
		if err != nil {
			return nil, err
		}
		n, excluded := 0, 0
		for _, i := range m.idx {
			if r := c.role[i]; r != "" {
				if m.exact {
					return nil, selErr(c.src, name, fmt.Errorf("%w: column is the %s and cannot also be a %s",
						ErrSelection, r, role))
				}
				continue
			}
			if c.excluded[i] {
				if m.exact {
					return nil, selErr(c.src, name, fmt.Errorf("%w: column is named in the features and matched by exclude; leave it out of one of them",
						ErrSelection))
				}
				excluded++
				continue
			}
			n++
			if !slices.Contains(idx, i) {
				idx = append(idx, i)
			}
		}
		if n == 0 && excluded == 0 {
			return nil, selErr(c.src, name, fmt.Errorf("%w: pattern matches only columns used otherwise (%s)",
				ErrMissingColumn, c.rolesOf(m.idx)))
		}
	}
	return idx, nil
}

// uniqueNames refuses columns of one role that share a name (a schema may
// hold a name twice, and a glob reaches both): a model, an output or a
// later stage finds its columns by name, and could not tell them apart.
func (c *compiler) uniqueNames(idx []int, role string) error {
	seen := make(map[string]bool, len(idx))
	for _, i := range idx {
		name := c.schema.Field(i).Name
		if seen[name] {
			return selErr(c.src, name, fmt.Errorf(
				"%w: %d columns are named %q and two of them would be %s columns; columns are found by name, so rename one, or leave it out (exclude)",
				ErrSelection, len(c.schema.FieldIndices(name)), name, role))
		}
		seen[name] = true
	}
	return nil
}

func (c *compiler) claim(i int, role string) error {
	if r := c.role[i]; r != "" {
		return selErr(c.src, c.schema.Field(i).Name,
			fmt.Errorf("%w: column is the %s and cannot also be the %s", ErrSelection, r, role))
	}
	c.role[i] = role
	return nil
}

func (c *compiler) rolesOf(idx []int) string {
	parts := make([]string, len(idx))
	for k, i := range idx {
		parts[k] = fmt.Sprintf("%s: %s", c.schema.Field(i).Name, c.role[i])
	}
	return strings.Join(parts, ", ")
}

func (c *compiler) names(idx []int) []string {
	names := make([]string, len(idx))
	for k, i := range idx {
		names[k] = c.schema.Field(i).Name
	}
	return names
}

// maxListed bounds the column list in error messages.
const maxListed = 40

func (c *compiler) available() string {
	fields := c.schema.Fields()
	names := make([]string, 0, min(len(fields), maxListed))
	for _, f := range fields[:min(len(fields), maxListed)] {
		names = append(names, f.Name)
	}
	s := strings.Join(names, ", ")
	if len(fields) > maxListed {
		s += fmt.Sprintf(", … (%d more)", len(fields)-maxListed)
	}
	if s == "" {
		s = "none"
	}
	return s
}

func (c *compiler) missing(name string) error {
	return selErr(c.src, name, fmt.Errorf("%w (columns: %s)", ErrMissingColumn, c.available()))
}

func (c *compiler) typeErr(i int, why string) error {
	f := c.schema.Field(i)
	return selErr(c.src, f.Name, fmt.Errorf("%w: %s (got %s)", ErrColumnType, why, f.Type))
}

// notNumeric returns the ErrNotNumeric error for a text column the CSV
// reader marked as mostly numeric, and nil for any other column.
func (c *compiler) notNumeric(i int) error {
	f := c.schema.Field(i)
	if !mostlyNumeric(f) {
		return nil
	}
	row := int64(-1)
	if v, ok := f.Metadata.GetValue(MetaFirstTextRow); ok {
		if r, err := strconv.ParseInt(v, 10, 64); err == nil {
			row = r
		}
	}
	text, _ := f.Metadata.GetValue(MetaFirstTextValue)
	return &Error{File: c.src.Path, Column: f.Name, Row: row, Err: fmt.Errorf("%w: %q", ErrNotNumeric, text)}
}

func selErr(src Source, col string, err error) *Error {
	return &Error{File: src.Path, Column: col, Row: -1, Err: err}
}

// IsNumeric reports whether dt converts to float64: integers, floats,
// decimals, and dictionaries of those.
func IsNumeric(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	case arrow.DICTIONARY:
		return IsNumeric(dt.(*arrow.DictionaryType).ValueType)
	}
	return false
}

func isString(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

// isLabelType reports whether dt can be a hard label column.
func isLabelType(dt arrow.DataType) bool {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		return IsNumeric(d.ValueType) || isString(d.ValueType)
	}
	return IsNumeric(dt) || isString(dt)
}

// listElem gives the element type of a list, large list or fixed-size list.
func listElem(dt arrow.DataType) (arrow.DataType, bool) {
	switch t := dt.(type) {
	case *arrow.ListType:
		return t.Elem(), true
	case *arrow.LargeListType:
		return t.Elem(), true
	case *arrow.FixedSizeListType:
		return t.Elem(), true
	}
	return nil, false
}

func isList(dt arrow.DataType) bool {
	_, ok := listElem(dt)
	return ok
}

// mostlyNumeric reports whether f is a text column that the CSV reader
// found to hold numbers except for some text.
func mostlyNumeric(f arrow.Field) bool {
	return isString(f.Type) && f.Metadata.FindKey(MetaFirstTextRow) >= 0
}
