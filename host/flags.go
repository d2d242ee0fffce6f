package host

import (
	"context"
	"io"
	"log/slog"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
	"github.com/switchboard-mcp/switchboard/internal/logging"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/telemetry"
)

// What a command line checks its flags against and hands over to the servers host
// runs (options, defaults, checks, the redactor, the tracing set-up), named here so
// that a program takes them from host alone and imports none of the packages host
// wires. The types are aliases: the same values, no second copy.

// APIOptions are the HTTP API's options, for ServeAPI (api.Options).
type APIOptions = api.Options

// MCPOptions are the MCP gateway's options over HTTP, for ServeMCP
// (gateway.HTTPOptions).
type MCPOptions = gateway.HTTPOptions

// The request body caps when the options leave them 0: the HTTP API's and the MCP
// gateway's.
const (
	DefaultAPIMaxRequestBytes = api.DefaultMaxRequestBytes
	DefaultMCPMaxRequestBytes = gateway.DefaultMaxRequestBytes
)

// IsLoopback reports whether a listen address binds only the loopback interface
// (gateway.IsLoopback): "" host (all interfaces) is not loopback; "localhost" is.
func IsLoopback(addr string) bool { return gateway.IsLoopback(addr) }

// IsLoopbackHost reports whether a URL's host (with or without its port) is the
// loopback interface, "localhost" included (httpguard.IsLoopback): where a client
// may look for the token of a service on this machine.
func IsLoopbackHost(hostport string) bool { return httpguard.IsLoopback(hostport) }

// CheckPublicURL reports an APIOptions.PublicURL that no sign-in callback can be
// built on, as ServeAPI would (api.CheckPublicURL).
func CheckPublicURL(s string) error { return api.CheckPublicURL(s) }

// CheckIssuer checks an OpenID issuer URL as the config's "serve": {"auth"} is
// checked (config.CheckIssuer).
func CheckIssuer(s string) error { return config.CheckIssuer(s) }

// Provider is a provider's tool format, for ToolCatalog (format.Provider).
type Provider = format.Provider

// The providers whose tool formats ToolCatalog writes.
const (
	MCP             = format.MCP
	OpenAI          = format.OpenAI
	OpenAIResponses = format.OpenAIResponses
	Anthropic       = format.Anthropic
)

// ParseProvider parses a provider's name, case-insensitively (format.ParseProvider).
func ParseProvider(s string) (Provider, error) { return format.ParseProvider(s) }

// The bounds of a Searcher's queries, as deferred mode's search tools have them
// (search.DefaultSearchLimit and the others).
const (
	DefaultSearchLimit = search.DefaultSearchLimit // Search's limit when given 0
	DefaultRegexLimit  = search.DefaultRegexLimit  // SearchRegex's
	MaxSearchLimit     = search.MaxLimit           // the most results either returns
	MaxPatternLen      = search.MaxPatternLen      // the longest pattern SearchRegex takes, in characters
)

// Redactor masks the secrets a program learns (a token, a DSN) in what it prints,
// as Options.Redactor does in the host's errors and logs (redact.Redactor).
type Redactor = redact.Redactor

// SetupTelemetry installs the tracer provider the OTEL_* variables ask for, and
// returns its shutdown; with no such variable it does nothing (telemetry.Setup).
// log gets the exporter's errors.
func SetupTelemetry(ctx context.Context, log *slog.Logger) (shutdown func(context.Context) error, err error) {
	return telemetry.Setup(ctx, log)
}

// LogOptions say where and how a program logs (logging.Options): the level, the
// format, a rotated file or a writer, and the redactor every record is masked with.
type LogOptions = logging.Options

// NewLogger is the logger of opts (nil: text at info level on stderr), and the
// closer of its file, if any (logging.New).
func NewLogger(opts *LogOptions) (*slog.Logger, io.Closer, error) {
	var o LogOptions
	if opts != nil {
		o = *opts
	}
	return logging.New(o)
}
