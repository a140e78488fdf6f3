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

// Options is the options struct of a stage. A stage declares its options
// once, as the exported fields of this struct, each tagged
//
//	Perplexity float64 `opt:"perplexity" help:"perplexity of the input affinities"`
//
// The tag's name is the option's name as a host shows it (the CLI's flag
// --perplexity); its snake_case form is the key under which the provenance
// records it. The default is the field's value in the struct the stage's
// NewOptions returns, so the one declaration gives flags, help text,
// defaults and recorded parameters. Anonymous struct fields (such as
// Columns) are flattened. A field's type is bool, int, uint64, float64,
// string, []string, []int, []float64, or a type that implements
// encoding.TextUnmarshaler and encoding.TextMarshaler (enums parse
// themselves; an Enum's Values are listed in the help).
//
// Validate checks the options that can be checked without data; errors
// wrap ErrInvalidOption (use Optionf).
type Options interface {
	Validate() error
}

// Enum is implemented by option types with a fixed set of values.
type Enum interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
	Values() []string
}

// Option is one declared option of a stage: a handle on one field of an
// options struct. Set and Value read and write that field.
type Option struct {
	Name string // as hosts show it: "learning-rate"
	Help string
	// Default is the default as Set accepts it ("" for an empty list).
	Default string
	// Values lists the allowed values of an enum, nil otherwise.
	Values []string
	field  reflect.Value
}

// Key is the option's provenance key: its name in snake_case.
func (o Option) Key() string { return strings.ReplaceAll(o.Name, "-", "_") }

// IsBool reports whether the option is a bool (a switch on the command line).
func (o Option) IsBool() bool { return o.field.Kind() == reflect.Bool }

// Value returns the option's current value in the form the provenance
// records: enums as their text, lists as slices, NaN and ±Inf as nil.
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
	}
	return v.Interface()
}

// String returns the value as Set accepts it.
func (o Option) String() string { return formatValue(o.field) }

// Set parses s into the option. A list is a comma list ("" is the empty
// list); an enum must be one of its Values. Errors wrap ErrInvalidOption and
// name the option.
func (o Option) Set(s string) error {
	if err := parseValue(o.field, s); err != nil {
		return &OptionError{Option: o.Name, Err: err}
	}
	return nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// Declare returns the declared options of opts, a pointer to an options
// struct, in field order. It panics when opts is not a pointer to a struct or
// a tagged field has an unsupported type: that is a programmer error.
func Declare(opts any) []Option {
	v := reflect.ValueOf(opts)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("transforms: Declare: want a pointer to an options struct, got %T", opts))
	}
	var out []Option
	declare(v.Elem(), &out)
	return out
}

func declare(v reflect.Value, out *[]Option) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		fv := v.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("opt") == "" {
			declare(fv, out)
			continue
		}
		name := sf.Tag.Get("opt")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		if !supported(fv) {
			panic(fmt.Sprintf("transforms: option %q: unsupported type %s", name, sf.Type))
		}
		o := Option{Name: name, Help: sf.Tag.Get("help"), field: fv}
		if e, ok := fv.Addr().Interface().(Enum); ok {
			o.Values = e.Values()
		}
		o.Default = o.String()
		*out = append(*out, o)
	}
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

// Params returns every declared option of opts under its provenance key,
// with its current (resolved) value.
func Params(opts any) map[string]any {
	out := map[string]any{}
	for _, o := range Declare(opts) {
		out[o.Key()] = o.Value()
	}
	return out
}

// Lookup returns the declared option of opts with the given name.
func Lookup(opts any, name string) (Option, bool) {
	for _, o := range Declare(opts) {
		if o.Name == name || o.Key() == name {
			return o, true
		}
	}
	return Option{}, false
}

// SetOptions sets options of opts by name ("perplexity" or "learning-rate";
// the snake_case key works too) from their text form.
func SetOptions(opts any, values map[string]string) error {
	decl := Declare(opts)
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		i := slices.IndexFunc(decl, func(o Option) bool { return o.Name == k || o.Key() == k })
		if i < 0 {
			return &OptionError{Option: k, Err: fmt.Errorf("no such option")}
		}
		if err := decl[i].Set(values[k]); err != nil {
			return err
		}
	}
	return nil
}

func parseValue(v reflect.Value, s string) error {
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok && v.Kind() != reflect.Slice {
		if err := u.UnmarshalText([]byte(s)); err != nil {
			if e, ok := v.Addr().Interface().(Enum); ok {
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

// enumText is the text of a value that marshals itself (an enum), and
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
