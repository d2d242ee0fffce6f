package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler runs a tool on raw JSON arguments.
type Handler func(ctx context.Context, args json.RawMessage) (*Result, error)

// Local is a Toolset of Go functions running in this process. The zero value is not
// ready: use NewLocal. Register tools with [Func] (typed) or [Local.AddRaw].
type Local struct {
	mu       sync.Mutex
	byName   map[string]*localTool
	order    []string
	snapshot atomic.Pointer[[]Tool]
	notifier Notifier
}

type localTool struct {
	def      Tool
	resolved *jsonschema.Resolved // the input schema, which Call validates arguments against
	handler  Handler
}

// NewLocal returns an empty set of local tools.
func NewLocal() *Local {
	l := &Local{byName: map[string]*localTool{}}
	l.snapshot.Store(&[]Tool{})
	return l
}

// Func registers fn as a tool whose input schema is derived from In (a struct; use
// `json` tags for names and `jsonschema:"..."` tags for descriptions). Arguments are
// validated against the schema before fn runs. Out is returned as the result: a
// string becomes a text block, a *Result is passed as is, anything else is returned
// as JSON text plus structured content.
func Func[In, Out any](l *Local, name, description string, fn func(ctx context.Context, in In) (Out, error)) error {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("tool %q: input schema: %w", name, err)
	}
	if schema.Type != "object" {
		return fmt.Errorf("tool %q: input must be a struct or map (its schema has type %q, not \"object\")", name, schema.Type)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("tool %q: input schema: %w", name, err)
	}
	var outSchema json.RawMessage
	if s, err := jsonschema.For[Out](nil); err == nil && s.Type == "object" {
		outSchema, _ = json.Marshal(s)
	}
	return l.add(name, description, raw, outSchema, func(ctx context.Context, args json.RawMessage) (*Result, error) {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return ErrorResult("invalid arguments for tool %q: %v", name, err), nil
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return toResult(out)
	})
}

// AddRaw registers a tool with a hand-written input schema (a JSON Schema object) and
// a handler on raw arguments. Arguments are validated against the schema first.
func (l *Local) AddRaw(name, description string, inputSchema json.RawMessage, h Handler) error {
	return l.add(name, description, inputSchema, nil, h)
}

func (l *Local) add(name, description string, inputSchema, outputSchema json.RawMessage, h Handler) error {
	if !NamePattern.MatchString(name) {
		return fmt.Errorf("tool name %q must match %s", name, NamePattern)
	}
	if h == nil {
		return fmt.Errorf("tool %q: nil handler", name)
	}
	var schema jsonschema.Schema
	if len(inputSchema) == 0 {
		inputSchema = emptySchema
	}
	if err := json.Unmarshal(inputSchema, &schema); err != nil {
		return fmt.Errorf("tool %q: input schema is not a JSON Schema: %w", name, err)
	}
	if schema.Type != "object" {
		return fmt.Errorf("tool %q: input schema must have \"type\": \"object\"", name)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %q: input schema: %w", name, err)
	}
	t := &localTool{
		def: Tool{
			Name: name, OriginalName: name, Server: LocalServer, Description: description,
			InputSchema: CleanSchema(inputSchema), OutputSchema: outputSchema,
		},
		resolved: resolved,
		handler:  h,
	}
	l.mu.Lock()
	if _, dup := l.byName[name]; dup {
		l.mu.Unlock()
		return fmt.Errorf("tool %q is already registered", name)
	}
	l.byName[name] = t
	l.order = append(l.order, name)
	l.publish()
	l.mu.Unlock()
	l.notifier.Notify()
	return nil
}

// Remove unregisters a tool; it reports whether the tool existed.
func (l *Local) Remove(name string) bool {
	l.mu.Lock()
	if _, ok := l.byName[name]; !ok {
		l.mu.Unlock()
		return false
	}
	delete(l.byName, name)
	for i, n := range l.order {
		if n == name {
			l.order = append(l.order[:i], l.order[i+1:]...)
			break
		}
	}
	l.publish()
	l.mu.Unlock()
	l.notifier.Notify()
	return true
}

// publish stores a fresh snapshot; l.mu must be held.
func (l *Local) publish() {
	tools := make([]Tool, 0, len(l.order))
	for _, n := range l.order {
		tools = append(tools, l.byName[n].def)
	}
	l.snapshot.Store(&tools)
}

// Tools returns the registered tools in registration order.
func (l *Local) Tools() []Tool { return *l.snapshot.Load() }

// Changed returns a channel closed when a tool is added or removed.
func (l *Local) Changed() <-chan struct{} { return l.notifier.Changed() }

// Call validates the arguments and runs the tool. An invalid argument, an error
// returned by the function, or a panic inside it comes back as an error result.
func (l *Local) Call(ctx context.Context, name string, args json.RawMessage) (res *Result, err error) {
	l.mu.Lock()
	t, ok := l.byName[name]
	l.mu.Unlock()
	if !ok {
		return ErrorResult("unknown tool %q", name), nil
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return ErrorResult("arguments for tool %q are not valid JSON: %v", name, err), nil
	}
	if _, isObject := instance.(map[string]any); !isObject {
		return ErrorResult("arguments for tool %q must be a JSON object", name), nil
	}
	if err := t.resolved.Validate(instance); err != nil {
		return ErrorResult("invalid arguments for tool %q: %v", name, err), nil
	}
	defer func() {
		if p := recover(); p != nil {
			res, err = ErrorResult("tool %q panicked: %v", name, p), nil
		}
	}()
	res, err = t.handler(ctx, args)
	if err != nil {
		return ErrorResult("%s", err.Error()), nil
	}
	if res == nil {
		return TextResult(""), nil
	}
	return res, nil
}

// toResult turns a typed tool's output into a result.
func toResult(out any) (*Result, error) {
	switch v := out.(type) {
	case *Result:
		if v == nil {
			return TextResult(""), nil
		}
		return v, nil
	case string:
		return TextResult(v), nil
	case nil:
		return TextResult(""), nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	res := &Result{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	if len(b) > 0 && b[0] == '{' {
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}
