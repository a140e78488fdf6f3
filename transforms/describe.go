package transforms

// DescriptionVersion is the schema version of Description: it grows by one
// whenever a field changes meaning or goes away (adding fields keeps it).
const DescriptionVersion = 1

// Description is the library's account of itself, generated from the
// registry: every stage with its options, inputs and outputs, and every
// model kind. Front ends build on it (ordinate describe --json; the Python
// package checks keywords and writes docstrings from it).
type Description struct {
	SchemaVersion int                `json:"schema_version"`
	Tool          string             `json:"tool"`
	Version       string             `json:"version"`
	Stages        []StageDescription `json:"stages"`
	ModelKinds    []ModelDescription `json:"model_kinds"`
	// HostOptions are options a host adds to every stage (the CLI's
	// --threads, --quiet, --log-format); the host fills them in.
	HostOptions []OptionDescription `json:"host_options,omitempty"`
}

// StageDescription describes one stage.
type StageDescription struct {
	Name     string              `json:"name"`
	Category string              `json:"category"`
	Summary  string              `json:"summary"`
	Usage    string              `json:"usage"`
	Doc      string              `json:"doc,omitempty"`
	Examples []string            `json:"examples,omitempty"`
	Inputs   []RoleDescription   `json:"inputs"`
	Outputs  []RoleDescription   `json:"outputs"`
	Options  []OptionDescription `json:"options"`
}

// RoleDescription describes a table a stage reads or writes.
type RoleDescription struct {
	Name     string   `json:"name"`
	Help     string   `json:"help"`
	Kind     string   `json:"kind,omitempty"`
	Required bool     `json:"required"`
	Variadic bool     `json:"variadic,omitempty"`
	Show     bool     `json:"show,omitempty"`
	Models   []string `json:"model_kinds,omitempty"`
}

// OptionDescription describes one option.
type OptionDescription struct {
	Name    string   `json:"name"` // as hosts show it: "learning-rate"
	Key     string   `json:"key"`  // in the provenance, and Python keyword: "learning_rate"
	Type    string   `json:"type"` // see Option.Type
	Default any      `json:"default"`
	Help    string   `json:"help"`
	Usage   string   `json:"usage"` // help with range and values
	Range   *Range   `json:"range,omitempty"`
	Values  []string `json:"values,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
}

// ModelDescription describes a model kind.
type ModelDescription struct {
	Kind  string `json:"kind"`
	Stage string `json:"stage,omitempty"` // "" for a kind any stage writes
	Doc   string `json:"doc"`
}

// Describe returns the description of every registered stage and model
// kind; version is the tool version it names.
func Describe(version string) Description {
	d := Description{SchemaVersion: DescriptionVersion, Tool: "ordinate", Version: version,
		Stages: []StageDescription{}, ModelKinds: []ModelDescription{}}
	for _, s := range Stages() {
		d.Stages = append(d.Stages, DescribeStage(s))
	}
	for _, k := range ModelKinds() {
		d.ModelKinds = append(d.ModelKinds, ModelDescription{Kind: k.Kind, Stage: k.Stage, Doc: k.Doc})
	}
	return d
}

// DescribeStage describes one stage.
func DescribeStage(s Stage) StageDescription {
	info := s.Info()
	sd := StageDescription{Name: info.Name, Category: info.Category, Summary: info.Summary, Usage: info.Usage,
		Doc: info.Doc, Examples: info.Examples, Inputs: []RoleDescription{}, Outputs: []RoleDescription{}, Options: []OptionDescription{}}
	role := func(r Role) RoleDescription {
		return RoleDescription{Name: r.Name, Help: r.Help, Kind: r.Kind, Required: r.Required, Variadic: r.Variadic, Show: r.Show, Models: r.Models}
	}
	for _, r := range info.Inputs {
		sd.Inputs = append(sd.Inputs, role(r))
	}
	for _, r := range info.Outputs {
		sd.Outputs = append(sd.Outputs, role(r))
	}
	for _, o := range Declare(s.NewOptions()) {
		sd.Options = append(sd.Options, DescribeOption(o))
	}
	return sd
}

// DescribeOption describes one declared option.
func DescribeOption(o Option) OptionDescription {
	return OptionDescription{Name: o.Name, Key: o.Key(), Type: o.Type(), Default: o.Value(), Help: o.Help,
		Usage: o.Usage(), Range: o.Range, Values: o.Values, Aliases: o.Aliases}
}
