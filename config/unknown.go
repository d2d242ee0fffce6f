package config

import (
	"fmt"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/switchboard-mcp/switchboard/internal/editdist"
)

// entryFields are a server entry's fields, for did-you-mean; the entry's reader
// (entryState.field) is what decides whether a field is known.
var entryFields = []string{
	"command", "args", "env", "cwd", "inheritEnv", "url", "headers", "oauth", "forwardIdentity", "type", "transport",
	"disabled", "enabled", "description", "timeout", "toolTimeout", "heartbeat", "tools", "prefix",
	"required", "approve", "sampling", "pinned", "protocolVersion", "envFile",
}

// otherHostFields are other hosts' names for an entry's fields: a file written for
// them connects nothing here, so the entry is refused with our name for it.
var otherHostFields = map[string]struct{ ours, host string }{
	"serverUrl":   {"url", "Windsurf"},
	"httpUrl":     {"url", "Gemini CLI"},
	"environment": {"env", "opencode"},
}

// oauthFields and toolsFields are the fields of "oauth" and "tools", for did-you-mean.
var (
	oauthFields = []string{"clientId", "clientSecret", "scopes", "redirectUri", "grant", "clientMetadataUrl", "perUser"}
	toolsFields = []string{"allow", "deny"}
)

// unknownFields reports the members of object v that its reader did not know
// (unknown, in file order). A near miss of a known field the object does not set
// ("disabeld", "comand", another host's "serverUrl") is an error with the field
// meant: the setting would otherwise be silently off (a server meant disabled runs).
// Anything else is a warning at its place: hosts keep their own fields in shared
// files. It returns the fields meant, so that the object's own checks do not add
// "required" errors for them.
func (p *parser) unknownFields(v *hujson.Value, fp string, unknown []string, known []string, hosts bool) (meant map[string]bool) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok || len(unknown) == 0 {
		return nil
	}
	set := map[string]bool{}
	for i := range obj.Members {
		set[keyOf(&obj.Members[i])] = true
	}
	todo := map[string]bool{}
	for _, k := range unknown {
		todo[k] = true
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := keyOf(m)
		if !todo[key] {
			continue
		}
		delete(todo, key) // a duplicate key was reported as such
		kp := fp + "." + key
		if o, ok := otherHostFields[key]; hosts && ok && !set[o.ours] {
			p.errAt(&m.Name, kp, "unknown field: did you mean %q? (%q is %s's name for it)", o.ours, key, o.host)
			meant = addMeant(meant, o.ours)
			continue
		}
		if k := nearMiss(key, known); k != "" && !set[k] {
			p.errAt(&m.Name, kp, "unknown field: did you mean %q?", k)
			meant = addMeant(meant, k)
			continue
		}
		p.warnAt(&m.Name, kp, "unknown field (ignored)")
	}
	return meant
}

func addMeant(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// nearMiss returns the known name that key is most likely a typo of: the closest
// within two edits ignoring case, one for names of four letters or fewer (where two
// edits reach unrelated words: "dev" and "env"); "" if none. Ties go to the first.
func nearMiss(key string, known []string) string {
	best, bestD := "", 3
	lk := strings.ToLower(key)
	for _, k := range known {
		limit := 2
		if len(k) <= 4 {
			limit = 1
		}
		if d := editdist.Distance(lk, strings.ToLower(k)); d <= limit && d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// warnAt records a warning at v's position, as an [Error] reads:
// "source:line:col: path: msg" (no position when v is nil or positions mean nothing).
func (p *parser) warnAt(v *hujson.Value, path, format string, args ...any) {
	e := &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
	if v != nil {
		if e.Line, e.Col = p.pos(v.StartOffset); e.Line > 0 {
			e.Source = p.source
		}
	}
	p.warns = append(p.warns, e.Error())
}
