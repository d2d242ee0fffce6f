package config

import (
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// Deferred modes: when a model is shown search tools instead of the catalog.
const (
	// DeferredAuto defers when the catalog is large: at least Threshold tools, or
	// (with a share, "auto:10%") definitions that would take more than that share of
	// the model's context window. The default.
	DeferredAuto = "auto"
	// DeferredAlways always shows the search tools (and the pinned tools) only.
	DeferredAlways = "always"
	// DeferredNever always shows the whole catalog.
	DeferredNever = "never"
)

// DeferredSettings is "switchboard.deferred" (the gateway's and the agent's) and
// "switchboard.agent.deferred" (the agent's alone, overriding it): whether a model
// sees the tool catalog or two search tools that load what it finds.
//
//	"deferred": "auto"        (the default: deferred from 15 tools, deferred.DefaultThreshold)
//	"deferred": "auto:10%"    (when the definitions would take over 10% of the context window)
//	"deferred": "always" | "never"
//	"deferred": {"mode": "auto", "threshold": 30, "native": true, "pinned": ["clock_*"]}
type DeferredSettings struct {
	// Mode is DeferredAuto, DeferredAlways or DeferredNever; empty means auto.
	Mode string `json:"mode,omitempty"`
	// Share, in auto mode, is the share of the model's context window (0 < Share < 1)
	// past which the catalog is deferred; 0 means the tool count decides (Threshold).
	Share float64 `json:"share,omitempty"`
	// Threshold, in auto mode without a share, is the tool count from which the
	// catalog is deferred; 0 means deferred.DefaultThreshold (15).
	Threshold int `json:"threshold,omitempty"`
	// Native asks the agent to use the provider's own tool search where it has one
	// (Anthropic's, OpenAI's) instead of Switchboard's; the gateway ignores it.
	Native bool `json:"native,omitempty"`
	// Pinned are globs of exposed tool names that are always shown. A server's own
	// "pinned" (globs of its original names, or true) adds to them.
	Pinned []string `json:"pinned,omitempty"`
	// Explicit is set by the parser when the config gives "deferred" at all (even
	// "auto"): the gateway defers only when asked to, by this or by --deferred, while
	// the agent takes the zero value as auto.
	Explicit bool `json:"-"`
}

// String is the mode as the config writes it ("auto:10%", "always").
func (d DeferredSettings) String() string {
	m := d.Mode
	if m == "" {
		m = DeferredAuto
	}
	if m == DeferredAuto && d.Share > 0 {
		return m + ":" + strconv.FormatFloat(d.Share*100, 'f', -1, 64) + "%"
	}
	return m
}

// deferredModes are the values of "deferred" (and of its "mode").
var deferredModes = []string{DeferredAuto, DeferredAlways, DeferredNever}

// ParseDeferredMode reads a mode as written in the config or on a command line:
// "auto", "auto:N%" (0 < N < 100), "always" or "never".
func ParseDeferredMode(s string) (DeferredSettings, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if rest, ok := strings.CutPrefix(s, DeferredAuto+":"); ok {
		n, err := strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
		if !strings.HasSuffix(rest, "%") || err != nil || n <= 0 || n >= 100 {
			return DeferredSettings{}, errors.New(`want "auto:N%" with N a percentage between 0 and 100, as in "auto:10%"`)
		}
		return DeferredSettings{Mode: DeferredAuto, Share: n / 100}, nil
	}
	if !slices.Contains(deferredModes, s) {
		return DeferredSettings{}, errors.New(`want "auto", "auto:N%", "always" or "never"`)
	}
	return DeferredSettings{Mode: s}, nil
}

// Pinned reports whether the tool (its server, its original and its exposed name)
// is always shown in deferred mode: its exposed name matches one of d's globs, or
// its original name one of its server's "pinned" globs.
func (c *Config) Pinned(d DeferredSettings, server, original, exposed string) bool {
	match := func(name string) func(string) bool {
		return func(glob string) bool { ok, err := path.Match(glob, name); return err == nil && ok }
	}
	if slices.ContainsFunc(d.Pinned, match(exposed)) {
		return true
	}
	if s := c.Server(server); s != nil {
		return slices.ContainsFunc(s.Pinned, match(original))
	}
	return false
}

// deferredSettings reads a "deferred" value: a mode string or an object.
func (p *parser) deferredSettings(v *hujson.Value, fp string) *DeferredSettings {
	if s, ok := asString(v); ok {
		d, err := ParseDeferredMode(s)
		if err != nil {
			p.errAt(v, fp, "%s", err.Error())
			return nil
		}
		d.Explicit = true
		return &d
	}
	d := DeferredSettings{Explicit: true}
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "mode":
			if s, ok := p.str(v, kp); ok {
				m, err := ParseDeferredMode(s)
				if err != nil {
					p.errAt(v, kp, "%s", err.Error())
					return
				}
				d.Mode, d.Share = m.Mode, m.Share
			}
		case "threshold":
			d.Threshold, _ = p.count(v, kp, 1)
		case "native":
			d.Native, _ = p.boolean(v, kp)
		case "pinned":
			d.Pinned = p.globs(v, kp)
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
	if d.Share > 0 && d.Threshold > 0 {
		p.errAt(v, fp, `"threshold" and "auto:N%%" both say when to defer: give one`)
	}
	return &d
}

// pinned reads a server's "pinned": true (every tool), false, or a list of globs of
// its original tool names.
func (p *parser) pinned(v *hujson.Value, fp string) []string {
	if b, ok := asBool(v); ok {
		if b {
			return []string{"*"}
		}
		return nil
	}
	return p.globs(v, fp)
}
