package host

import (
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// The config a program finds, loads, checks and overrides with its flags before it
// makes a Host of it, named here so that a program takes it from host alone and
// imports no config. The types are aliases (the same values, no second copy), the
// functions config's own.

// Config is a loaded config: its servers and its "switchboard" settings
// (config.Config).
type Config = config.Config

// ConfigErrors are every problem of a config that did not load, each naming its
// place as file:line:col (config.Errors).
type ConfigErrors = config.Errors

// ConfigServer is one server of a config (config.Server).
type ConfigServer = config.Server

// ConfigOptions are the options of a config's load, Options.ConfigOptions among
// them (config.Options).
type ConfigOptions = config.Options

// ConfigInput is a VS Code config's ${input:ID}, for ConfigOptions.Prompt
// (config.Input).
type ConfigInput = config.Input

// Discovery is where a config was looked for, and the file found (config.Discovery);
// ConfigCandidate one place looked at (config.Candidate).
type (
	Discovery       = config.Discovery
	ConfigCandidate = config.Candidate
)

// The settings of the config's "switchboard" block that a command line's flags
// override before New: the model's, the agent's, the session store's, deferred
// mode's (config.ModelSettings and the others).
type (
	ModelSettings    = config.ModelSettings
	AgentSettings    = config.AgentSettings
	SessionSettings  = config.SessionSettings
	DeferredSettings = config.DeferredSettings
)

// EnvConfig names the environment variable that points at a config file.
const EnvConfig = config.EnvConfig

// Stdio is the transport of a server that is a program on this machine.
const Stdio = config.Stdio

// GrantClientCredentials is the "grant" of a server that signs in with its client
// credentials, no person needed.
const GrantClientCredentials = config.GrantClientCredentials

// The deferred modes that a flag names: search tools always, never.
const (
	DeferredAlways = config.DeferredAlways
	DeferredNever  = config.DeferredNever
)

// FindConfig finds the config file to load (config.Discover): flag, the --config
// value (a path, or claude, cursor or vscode for that host's config), else
// $SWITCHBOARD_CONFIG, else the first of SearchPlaces that exists. No Found means
// there is none: DemoConfig then.
func FindConfig(flag string) (*Discovery, error) {
	return config.Discover(&config.DiscoverOptions{Flag: flag})
}

// SearchPlaces are the files FindConfig looks at when neither --config nor
// $SWITCHBOARD_CONFIG names one, in order, as this machine has them
// (config.SearchPlaces): the one list help texts and messages show.
func SearchPlaces() []ConfigCandidate { return config.SearchPlaces(nil) }

// LoadConfig loads and checks the config file at path (config.Load).
func LoadConfig(path string, opts *ConfigOptions) (*Config, error) { return config.Load(path, opts) }

// DefaultAPIKeyEnv is the environment variable that holds a provider's API key
// when the config names none (config.DefaultAPIKeyEnv).
func DefaultAPIKeyEnv(provider string) string { return config.DefaultAPIKeyEnv(provider) }

// ParseDeferredMode reads a deferred mode as the config's "deferred" takes it:
// auto, auto:N%, always or never (config.ParseDeferredMode).
func ParseDeferredMode(s string) (DeferredSettings, error) { return config.ParseDeferredMode(s) }

// DemoConfig is the built-in demo config, the config of a program that found none:
// its stdio servers (DemoServers) each run as `executable demo-server NAME`, which
// devtools.RunDemo serves (demo.Config).
func DemoConfig(executable string) *Config { return demo.Config(executable) }

// DemoServers are the names of the built-in demo servers.
func DemoServers() []string { return demo.Names() }
