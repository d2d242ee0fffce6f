package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// Input is one of the "inputs" a VS Code config declares, the values its ${input:ID}
// references stand for:
//
//	"inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}]
//
// A value comes from the environment variable named by Env (SWITCHBOARD_INPUT_API_KEY),
// else from [Options.Prompt], else from Default; otherwise loading fails with an error
// naming the input and the variable. Values are secrets, masked like env values.
type Input struct {
	ID          string
	Type        string // promptString, pickString or command (which only Env can answer)
	Description string
	Password    bool     // the value is not to be shown as it is typed
	Default     string   // used when the user gives nothing, or can't be asked
	Options     []string // the choices of a pickString
	// Env is the variable that gives the value: SWITCHBOARD_INPUT_ and the ID
	// upper-cased, every character that is not a letter or digit turned into '_'.
	Env string
}

// InputEnv is the environment variable that gives the value of the input id.
func InputEnv(id string) string {
	b := []byte(strings.ToUpper(id))
	for i, c := range b {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	return "SWITCHBOARD_INPUT_" + string(b)
}

// declareInputs reads the top-level "inputs" array.
func (p *parser) declareInputs(v *hujson.Value) {
	if isNull(v) {
		return
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.errAt(v, "inputs", "want an array")
		return
	}
	p.inputs = map[string]Input{}
	first := map[string]*hujson.Value{}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		ip := "inputs[" + strconv.Itoa(i) + "]"
		obj, ok := el.Value.(*hujson.Object)
		if !ok {
			p.errAt(el, ip, "want an object")
			continue
		}
		in := Input{Type: "promptString"}
		var idV *hujson.Value
		for j := range obj.Members {
			m := &obj.Members[j]
			fp := ip + "." + keyOf(m)
			if isNull(&m.Value) {
				continue
			}
			switch keyOf(m) {
			case "id":
				in.ID, _ = p.str(&m.Value, fp)
				idV = &m.Value
			case "type":
				in.Type, _ = p.str(&m.Value, fp)
			case "description":
				in.Description, _ = p.str(&m.Value, fp)
			case "password":
				in.Password, _ = p.boolean(&m.Value, fp)
			case "default":
				in.Default, _ = p.str(&m.Value, fp)
			case "options":
				in.Options = p.pickOptions(&m.Value, fp)
			}
			// Other members (a command input's "command" and "args") are VS Code's.
		}
		switch {
		case idV == nil || in.ID == "":
			p.errAt(el, ip, `"id" is required`)
			continue
		case first[in.ID] != nil:
			p.errAt(idV, ip+".id", "duplicate input id %q (first at %s)", in.ID, p.where(first[in.ID]))
			continue
		}
		first[in.ID] = idV
		in.Env = InputEnv(in.ID)
		p.inputs[in.ID] = in
	}
}

// pickOptions reads a pickString's options: strings, or {"label", "value"} objects.
func (p *parser) pickOptions(v *hujson.Value, fp string) []string {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.errAt(v, fp, "want an array")
		return nil
	}
	var out []string
	for i := range arr.Elements {
		el := &arr.Elements[i]
		if s, ok := asString(el); ok {
			out = append(out, s)
			continue
		}
		if obj, ok := el.Value.(*hujson.Object); ok {
			for j := range obj.Members {
				if keyOf(&obj.Members[j]) == "value" {
					if s, ok := asString(&obj.Members[j].Value); ok {
						out = append(out, s)
					}
				}
			}
			continue
		}
		p.errAt(el, fp+"["+strconv.Itoa(i)+"]", "want a string")
	}
	return out
}

// input resolves ${input:id} in the value v at fp. ok is false when it has no value
// (an error is recorded once per input).
func (p *parser) input(id, fp string, v *hujson.Value) (string, bool) {
	if val, done := p.inputVals[id]; done {
		return val, true
	}
	if p.inputFailed[id] {
		return "", false
	}
	fail := func(format string, args ...any) (string, bool) {
		if p.inputFailed == nil {
			p.inputFailed = map[string]bool{}
		}
		p.inputFailed[id] = true
		p.errAt(v, fp, "${input:%s} %s", id, fmt.Sprintf(format, args...))
		return "", false
	}
	in, declared := p.inputs[id]
	if !declared {
		in = Input{ID: id, Env: InputEnv(id)}
	}
	val, ok := p.lookup(in.Env)
	switch {
	case ok:
	case !declared:
		return fail(`is not declared in "inputs" (declare it, or set $%s)`, in.Env)
	case in.Type == "command":
		if in.Default == "" {
			return fail(`is a "command" input, which Switchboard can't run: set $%s`, in.Env)
		}
		val = in.Default
	default:
		var err error = errNoPrompt
		if p.ask != nil {
			val, err = p.ask(in)
		}
		switch {
		case err == nil && val == "":
			val = in.Default
		case err != nil && in.Default != "":
			val = in.Default
		case err != nil:
			return fail("has no value: set $%s (%v)", in.Env, err)
		}
	}
	if in.Type == "pickString" && len(in.Options) > 0 && !slices.Contains(in.Options, val) {
		return fail("must be one of %s", strings.Join(in.Options, ", "))
	}
	if p.inputVals == nil {
		p.inputVals = map[string]string{}
	}
	p.inputVals[id] = val
	return val, true
}

// errNoPrompt explains a missing value when there is no Options.Prompt.
var errNoPrompt = errorString("nothing to ask on")

type errorString string

func (e errorString) Error() string { return string(e) }
