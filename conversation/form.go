package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Form is a server's form (an elicitation's requestedSchema), read once for every
// front end: the fields to show and ask for (Fields), and the check of an answer
// (Check). The spec allows only a flat object of primitive properties (strings,
// numbers, integers, booleans, single choices as enum or oneOf, multiple choices as
// arrays).
type Form struct {
	// Schema is the form's schema as the server sent it (an empty object schema when
	// it sent none).
	Schema json.RawMessage
	// Fields are the form's fields, the required ones first, each group by name.
	Fields []*Field

	required []string // the names the form requires, described or not
}

// Field is one field of a Form.
type Field struct {
	Name        string
	Required    bool
	Type        string // "string", "number", "integer", "boolean", "array"; "" unsaid
	Title       string
	Description string
	// Default is the field's default ("All primitive types support optional default
	// values", SEP-1034): what a front end pre-fills and Check puts in a field left
	// out. nil: none.
	Default any
	// Choices are the field's choices (single, or several for an array); nil when it
	// has none.
	Choices []Choice

	schema *jsonschema.Resolved
}

// Choice is an entry of a field's enum: its value and, when titled, its title.
type Choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// fieldText is what a field's schema says of it beyond validation.
type fieldText struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []Choice `json:"oneOf"`
	Items       *struct {
		Enum  []string `json:"enum"`
		AnyOf []Choice `json:"anyOf"`
	} `json:"items"`
}

// ReadForm reads a form's schema (an elicitation's RequestedSchema, any value that
// marshals to JSON; nil is a form without fields). The error says why it cannot be
// shown to anyone: it is not a JSON schema, not an object's, or a field's schema is
// not one.
func ReadForm(requested any) (*Form, error) {
	if requested == nil {
		return &Form{Schema: json.RawMessage(`{"type":"object","properties":{}}`)}, nil
	}
	raw, err := json.Marshal(requested)
	if err != nil {
		return nil, fmt.Errorf("its form cannot be read: %v", err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("its form is not a JSON schema: %v", err)
	}
	if schema.Type != "" && schema.Type != "object" {
		return nil, fmt.Errorf("its form is of type %q, not an object", schema.Type)
	}
	var texts struct {
		Properties map[string]fieldText `json:"properties"`
	}
	_ = json.Unmarshal(raw, &texts) // what does not parse shows as a plain field
	f := &Form{Schema: raw}
	for name, prop := range schema.Properties {
		if prop == nil {
			continue
		}
		rs, err := prop.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("its field %q is not a JSON schema: %v", name, err)
		}
		t := texts.Properties[name]
		fd := &Field{Name: name, Required: slices.Contains(schema.Required, name), Type: t.Type,
			Title: t.Title, Description: t.Description, Choices: t.choices(), schema: rs}
		var d any
		if prop.Default != nil && json.Unmarshal(prop.Default, &d) == nil {
			fd.Default = d
		}
		f.Fields = append(f.Fields, fd)
	}
	f.required = schema.Required
	slices.SortFunc(f.Fields, func(a, b *Field) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return f, nil
}

func (t fieldText) choices() []Choice {
	enum, names, titled := t.Enum, t.EnumNames, t.OneOf
	if t.Type == "array" && t.Items != nil {
		enum, names, titled = t.Items.Enum, nil, t.Items.AnyOf
	}
	if len(titled) > 0 {
		return titled
	}
	if len(enum) == 0 {
		return nil
	}
	out := make([]Choice, len(enum))
	for i, v := range enum {
		out[i] = Choice{Const: v}
		if i < len(names) {
			out[i].Title = names[i]
		}
	}
	return out
}

func (f *Form) field(name string) *Field {
	for _, fd := range f.Fields {
		if fd.Name == name {
			return fd
		}
	}
	return nil
}

// Check checks an answer's content against the form: every field the form has, of
// its type and within its bounds, the required ones present; the defaults fill the
// fields left out. raw is the content as JSON (empty or null: no field). The error
// names each field that is wrong, as "content.NAME".
func (f *Form) Check(raw json.RawMessage) (map[string]any, error) {
	content := map[string]any{}
	if t := strings.TrimSpace(string(raw)); t != "" && t != "null" {
		if err := json.Unmarshal(raw, &content); err != nil || content == nil {
			return nil, errors.New(`"content": want an object with the form's fields`)
		}
	}
	for _, fd := range f.Fields {
		if _, ok := content[fd.Name]; !ok && fd.Default != nil {
			content[fd.Name] = fd.Default
		}
	}
	var problems []string
	for name, v := range content {
		fd := f.field(name)
		if fd == nil {
			problems = append(problems, fmt.Sprintf("%q: the form has no such field (its fields: %s)", "content."+name, strings.Join(f.names(), ", ")))
			continue
		}
		if err := fd.Check(v); err != nil {
			problems = append(problems, fmt.Sprintf("%q: %v", "content."+name, err))
		}
	}
	for _, name := range f.required {
		if _, ok := content[name]; !ok {
			problems = append(problems, fmt.Sprintf("%q: required", "content."+name))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return content, nil
}

// Check checks one value of the field (as JSON decodes it: float64 for a number,
// []any for an array) against the field's schema; the error says what is wrong in
// words a person reads.
func (fd *Field) Check(v any) error {
	if err := fd.schema.Validate(v); err != nil {
		return errors.New(tidyNumbers(strings.TrimPrefix(err.Error(), "validating root: ")))
	}
	return nil
}

// names are the names of the fields the form describes, sorted.
func (f *Form) names() []string {
	names := make([]string, 0, len(f.Fields))
	for _, fd := range f.Fields {
		names = append(names, fd.Name)
	}
	slices.Sort(names)
	return names
}

// The schema library writes the numbers of its messages as fractions and with six
// decimals ("99/1 is greater than 10.000000"); a person reads "99" and "10".
var (
	wholeFraction = regexp.MustCompile(`\b(-?\d+)/1\b`)
	zeroDecimals  = regexp.MustCompile(`\b(\d+)\.0+\b`)
	trailingZeros = regexp.MustCompile(`\b(\d+\.\d*?[1-9])0+\b`)
)

func tidyNumbers(msg string) string {
	msg = wholeFraction.ReplaceAllString(msg, "$1")
	msg = zeroDecimals.ReplaceAllString(msg, "$1")
	return trailingZeros.ReplaceAllString(msg, "$1")
}
