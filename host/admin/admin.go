// Package admin is what the administration of a running service's servers
// answers: host.Host's AddServer, PatchServer, RemoveServer and ServerConfig
// return a Result, or an *Error whose Kind says what kept the change from being
// made. A front end chooses how to say it: the HTTP API maps each Kind to a
// status (api/serveredit.go), a CLI to an exit code.
//
// The package is a leaf, so that the host that makes these values and the front
// ends that render them (the API, which the host itself builds) both import it.
package admin

// Kind says what kept a change of the servers from being made.
type Kind int

const (
	// NotFound: no server of that name; Error.Servers are those there are.
	NotFound Kind = iota + 1
	// Exists: a server of that name exists already.
	Exists
	// Invalid: the entry (or the patched one) is not one the config takes;
	// Error.Field names the field at fault.
	Invalid
	// ConfigInvalid: the config file does not load as it is now; it must be
	// fixed before it is edited.
	ConfigInvalid
)

// Error is why a change of the servers changed nothing, when it is the request's
// fault. Other errors (a file that cannot be written) are the service's.
type Error struct {
	Kind Kind
	// Server is the server the change was for ("" when the request named none).
	Server string
	// Field is the entry's field at fault (Invalid): "command", "env.TOKEN",
	// "name"; "" when the problem is the entry as a whole.
	Field string
	// Servers are the names there are, to choose from (NotFound).
	Servers []string
	Err     error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Result is what a change of the servers did.
type Result struct {
	// Saved says the change was written to the config file (Source); false: the
	// config has no file (the built-in demo's), and the change lasts until the
	// process ends.
	Saved  bool
	Source string
	// Warnings are the config's warnings about the server ("unknown field
	// (ignored)"), as a file's load logs them.
	Warnings []string
}
