package transforms

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Options is a pointer to a method's options struct: the one struct that
// both hosts and the method's numerics use. A method declares its options
// once, as exported fields tagged
//
//	Perplexity float64 `opt:"perplexity" range:"[1,)" help:"perplexity of the input affinities"`
//
// The tags are:
//
//   - opt: the option's name as hosts show it (the CLI's flag --perplexity);
//     its snake_case form is the key under which the provenance records it.
//   - help: one line for people; the range and the allowed values are
//     appended from the other tags (Option.Usage), so the help never
//     restates them.
//   - range: the interval of allowed values of a number (or of each element
//     of a list of numbers), "[1,)" (≥ 1), "(0,)" (> 0), "[0,1)" or "[0,1]";
//     an empty bound is unbounded. A float is always finite.
//   - alias: earlier names of the option, comma separated: they still work
//     (SetOptions, the CLI) but are not shown.
//
// The default is the field's value in the struct the method's
// DefaultOptions returns (a Stage's NewOptions returns a pointer to a
// copy), so the one declaration gives flags, help, ranges, validation,
// defaults and recorded parameters. Anonymous struct fields (such as
// Columns) are flattened. A field's type is bool, int, uint64, float64,
// string, []string, []int, []float64, an Enum, or a type that implements
// encoding.TextUnmarshaler and encoding.TextMarshaler (a structured value
// such as arrowio.Shard, which parses itself).
//
// Fields without an opt tag are the library's alone (threads, callbacks,
// tuning constants a host does not set); a range tag on such a field is
// checked all the same, under the field's Go name.
//
// Validate checks every declared value against its type, range and enum
// values, then calls the struct's own Validate method, if it has one, for
// the rules that tie options together. Checks that need the data (a
// perplexity below N − 1) belong to the numerics, which know N.
type Options any

// Validator is implemented by options structs with rules that tie several
// options together. Its errors wrap ErrInvalidOption (use Optionf).
type Validator interface {
	Validate() error
}

// Enum is the constraint of an option type with a fixed set of values: a
// string type whose Values lists them. Such a type needs no parsing code:
// Set, Validate and the help text use Values.
//
//	type Init string
//	const (InitPCA Init = "pca"; InitRandom Init = "random")
//	func (Init) Values() []string { return []string{"pca", "random"} }
type Enum interface {
	~string
	Values() []string
}

// EnumValid reports whether e is one of its type's values.
func EnumValid[E Enum](e E) bool { return slices.Contains(e.Values(), string(e)) }

// ParseEnum returns the value of E named s, or an error listing the
// values.
func ParseEnum[E Enum](s string) (E, error) {
	e := E(s)
	if !EnumValid(e) {
		return e, fmt.Errorf("%q: want one of %s", s, strings.Join(e.Values(), ", "))
	}
	return e, nil
}

// enumValues is what an Enum has besides its string kind.
type enumValues interface{ Values() []string }

// Option is one declared option of a stage: a handle on one field of an
// options struct. Set and Value read and write that field.
type Option struct {
	Name string // as hosts show it: "learning-rate"
	Help string // the help tag, without range or values
	// Default is the default as Set accepts it ("" for an empty list).
	Default string
	// Values lists the allowed values of an enum, nil otherwise.
	Values []string
	// Range is the interval of allowed values of a number (of each
	// element of a list of numbers), nil when any value goes.
	Range *Range
	// Aliases are earlier names that still set the option.
	Aliases []string
	field   reflect.Value
}

// Key is the option's provenance key: its name in snake_case.
func (o Option) Key() string { return strings.ReplaceAll(o.Name, "-", "_") }

// IsBool reports whether the option is a bool (a switch on the command line).
func (o Option) IsBool() bool { return o.field.Kind() == reflect.Bool }

// Type names the option's type for hosts: bool, int, uint, float, string,
// enum, text (a structured value that parses itself), or list of string,
// int or float.
func (o Option) Type() string { return typeName(o.field) }

func typeName(v reflect.Value) string {
	if _, ok := v.Addr().Interface().(enumValues); ok {
		return "enum"
	}
	if v.Kind() != reflect.Slice && v.Addr().Type().Implements(textUnmarshaler) {
		return "text"
	}
	switch v.Kind() {
	case reflect.Bool:
		return "bool"
	case reflect.Int:
		return "int"
	case reflect.Uint64:
		return "uint"
	case reflect.Float64:
		return "float"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list of " + typeName(reflect.New(v.Type().Elem()).Elem())
	}
	return v.Type().String()
}

// Usage is the help text with the range and the values appended:
// "perplexity of the input affinities (≥ 1)".
func (o Option) Usage() string {
	var notes []string
	if o.Range != nil {
		notes = append(notes, o.Range.String())
	}
	if o.Values != nil {
		notes = append(notes, strings.Join(o.Values, ", "))
	}
	if len(notes) == 0 {
		return o.Help
	}
	return o.Help + " (" + strings.Join(notes, "; ") + ")"
}

// Value returns the option's current value in the form the provenance
// records: enums and structured values as their text, lists as slices,
// NaN and ±Inf as nil.
func (o Option) Value() any {
	v := o.field
	if t, ok := enumText(v); ok {
		return t
	}
	switch v.Kind() {
	case reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
	case reflect.String:
		return v.String()
	}
	return v.Interface()
}

// String returns the value as Set accepts it.
func (o Option) String() string { return formatValue(o.field) }

// Set parses s into the option. A list is a comma list ("" is the empty
// list); an enum must be one of its Values; a number must be in its Range.
// Errors wrap ErrInvalidOption and name the option.
func (o Option) Set(s string) error {
	if err := parseValue(o.field, s); err != nil {
		return &OptionError{Option: o.Name, Err: err}
	}
	return o.check()
}

// check validates the option's current value against its enum values and
// range.
func (o Option) check() error {
	if err := checkValue(o.field, o.Values, o.Range); err != nil {
		return &OptionError{Option: o.Name, Err: err}
	}
	return nil
}

func checkValue(v reflect.Value, values []string, r *Range) error {
	switch v.Kind() {
	case reflect.String:
		if values != nil && !slices.Contains(values, v.String()) {
			return fmt.Errorf("%q: want one of %s", v.String(), strings.Join(values, ", "))
		}
	case reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%g: want a finite number", f)
		}
		if r != nil && !r.Contains(f) {
			return fmt.Errorf("%s: want a value %s", formatValue(v), r)
		}
	case reflect.Int:
		if r != nil && !r.Contains(float64(v.Int())) {
			return fmt.Errorf("%d: want a value %s", v.Int(), r)
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := checkValue(v.Index(i), values, r); err != nil {
				return err
			}
		}
	}
	return nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// Declare returns the declared options of opts, a pointer to an options
// struct, in field order. It panics when opts is not a pointer to a struct,
// a tagged field has an unsupported type or a range tag does not parse:
// that is a programmer error.
func Declare(opts Options) []Option {
	var out []Option
	walk(opts, func(o Option, declared bool) {
		if declared {
			out = append(out, o)
		}
	})
	return out
}

// walk calls fn for every declared option of opts and every library field
// with a range tag (declared false, named by its Go name).
func walk(opts Options, fn func(o Option, declared bool)) {
	v := reflect.ValueOf(opts)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("transforms: want a pointer to an options struct, got %T", opts))
	}
	walkStruct(v.Elem(), fn)
}

func walkStruct(v reflect.Value, fn func(o Option, declared bool)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		fv := v.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("opt") == "" {
			walkStruct(fv, fn)
			continue
		}
		name := sf.Tag.Get("opt")
		declared := name != "" && name != "-"
		rangeTag := sf.Tag.Get("range")
		if !sf.IsExported() || (!declared && rangeTag == "") {
			continue
		}
		if !declared {
			name = sf.Name
		}
		if !supported(fv) {
			panic(fmt.Sprintf("transforms: option %q: unsupported type %s", name, sf.Type))
		}
		o := Option{Name: name, Help: sf.Tag.Get("help"), field: fv}
		if e, ok := elemValues(fv); ok {
			o.Values = e
		}
		if rangeTag != "" {
			r, err := ParseRange(rangeTag)
			if err != nil {
				panic(fmt.Sprintf("transforms: option %q: %v", name, err))
			}
			o.Range = &r
		}
		if a := sf.Tag.Get("alias"); a != "" {
			o.Aliases = SplitList(a)
		}
		o.Default = o.String()
		fn(o, declared)
	}
}

// elemValues returns the Values of an enum field (or of the elements of a
// list of enums).
func elemValues(v reflect.Value) ([]string, bool) {
	t := v.Type()
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	e, ok := reflect.New(t).Interface().(enumValues)
	if !ok {
		return nil, false
	}
	return e.Values(), true
}

func supported(v reflect.Value) bool {
	if v.Addr().Type().Implements(textUnmarshaler) {
		return true
	}
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Uint64, reflect.Float64, reflect.String:
		return true
	case reflect.Slice:
		switch v.Type().Elem().Kind() {
		case reflect.String, reflect.Int, reflect.Float64:
			return true
		}
	}
	return false
}

// Validate checks the options of opts: every declared value (and every
// library field with a range tag) against its type, range and enum values,
// then the struct's own Validate, if any. Errors are *OptionError.
func Validate(opts Options) error {
	var err error
	walk(opts, func(o Option, _ bool) {
		if err == nil {
			err = o.check()
		}
	})
	if err != nil {
		return err
	}
	if v, ok := opts.(Validator); ok {
		return v.Validate()
	}
	return nil
}

// Params returns every declared option of opts under its provenance key,
// with its current (resolved) value.
func Params(opts Options) map[string]any {
	out := map[string]any{}
	for _, o := range Declare(opts) {
		out[o.Key()] = o.Value()
	}
	return out
}

// Lookup returns the declared option of opts with the given name (or
// snake_case key, or alias).
func Lookup(opts Options, name string) (Option, bool) {
	for _, o := range Declare(opts) {
		if o.is(name) {
			return o, true
		}
	}
	return Option{}, false
}

func (o Option) is(name string) bool {
	return o.Name == name || o.Key() == name || slices.Contains(o.Aliases, name) ||
		slices.Contains(o.Aliases, strings.ReplaceAll(name, "_", "-"))
}

// SetOptions sets options of opts by name ("perplexity" or "learning-rate";
// the snake_case key and the aliases work too) from their text form.
func SetOptions(opts Options, values map[string]string) error {
	decl := Declare(opts)
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	set := map[string]string{}
	for _, k := range names {
		i := slices.IndexFunc(decl, func(o Option) bool { return o.is(k) })
		if i < 0 {
			return &OptionError{Option: k, Err: fmt.Errorf("no such option")}
		}
		if prev, ok := set[decl[i].Name]; ok {
			return &OptionError{Option: decl[i].Name, Err: fmt.Errorf("given twice, as %s and %s", prev, k)}
		}
		set[decl[i].Name] = k
		if err := decl[i].Set(values[k]); err != nil {
			return err
		}
	}
	return nil
}

func parseValue(v reflect.Value, s string) error {
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok && v.Kind() != reflect.Slice {
		if err := u.UnmarshalText([]byte(s)); err != nil {
			if e, ok := v.Addr().Interface().(enumValues); ok {
				return fmt.Errorf("%q: want one of %s", s, strings.Join(e.Values(), ", "))
			}
			return err
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not an integer", s)
		}
		v.SetInt(int64(n))
	case reflect.Uint64:
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a non-negative integer", s)
		}
		v.SetUint(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(s)
	case reflect.Slice:
		items := SplitList(s)
		out := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			if err := parseValue(out.Index(i), it); err != nil {
				return err
			}
		}
		v.Set(out)
	default:
		panic("transforms: unsupported option type " + v.Type().String())
	}
	return nil
}

// enumText is the text of a structured value that marshals itself, and
// whether it does; a value whose MarshalText fails gives its fmt form.
func enumText(v reflect.Value) (string, bool) {
	m, ok := v.Addr().Interface().(encoding.TextMarshaler)
	if !ok || v.Kind() == reflect.Slice {
		return "", false
	}
	b, err := m.MarshalText()
	if err != nil {
		return fmt.Sprint(v.Interface()), true
	}
	return string(b), true
}

func formatValue(v reflect.Value) string {
	if t, ok := enumText(v); ok {
		return t
	}
	switch v.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return v.String()
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatValue(v.Index(i))
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v.Interface())
}

// SplitList splits a comma list, trimming blanks and dropping empty items;
// "" gives an empty, non-nil list.
func SplitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
