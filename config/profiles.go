package config

import (
	"regexp"
	"strconv"

	"github.com/tailscale/hujson"
)

// Profile is one of "switchboard.profiles": which servers and tools the people it
// names see and call, through the API, its compatible endpoints, chat turns and
// the gateway (/mcp, and /mcp/NAME for this profile alone).
//
//	"profiles": {"sales": {"servers": ["crm", "mail"], "tools": {"deny": ["*delete*"]},
//	                       "groups": ["sales"], "users": ["auth0|42"]}}
//
// A person's access is the union of the profiles they belong to; admins see
// everything; with profiles configured, a person in none sees no tools. Without
// any, everyone sees everything.
type Profile struct {
	// Name is the profile's key: letters, digits, '.', '_' and '-', as a URL path
	// takes it (/mcp/NAME).
	Name string `json:"name"`
	// Servers are the configured servers it reaches; empty: every server.
	Servers []string `json:"servers,omitempty"`
	// Tools keeps, of those servers' tools, those whose exposed name an allow glob
	// matches (all, when there is none) and no deny glob does: deny wins.
	Tools ToolFilter `json:"tools,omitzero"`
	// Groups are values of the identity provider's groups claim
	// (serve.auth.groupsClaim): a person with one of them belongs.
	Groups []string `json:"groups,omitempty"`
	// Users are subjects ("sub") who belong.
	Users []string `json:"users,omitempty"`
}

// profileNameRE is what a profile may be called: a URL path segment as it is.
var profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// serverRef is a server a profile names, checked once every server is read.
type serverRef struct {
	name string
	path string
	v    *hujson.Value
}

// profiles reads "switchboard.profiles"; the servers each names are checked by
// checkProfileServers once the servers are known.
func (p *parser) profiles(v *hujson.Value, fp string) []Profile {
	var out []Profile
	p.members(v, fp, func(name, kp string, v *hujson.Value) {
		if !profileNameRE.MatchString(name) {
			p.errAt(v, kp, "bad profile name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit): it names the endpoint /mcp/NAME", name)
			return
		}
		pr := Profile{Name: name}
		p.members(v, kp, func(key, fp string, v *hujson.Value) {
			switch key {
			case "servers":
				pr.Servers = p.strings(v, fp, false)
				arr, _ := v.Value.(*hujson.Array)
				for i, s := range pr.Servers {
					if arr != nil && s != "" {
						p.serverRefs = append(p.serverRefs, serverRef{name: s, path: fp + "[" + strconv.Itoa(i) + "]", v: &arr.Elements[i]})
					}
				}
			case "tools":
				p.members(v, fp, func(key, kp string, v *hujson.Value) {
					switch key {
					case "allow":
						pr.Tools.Allow = p.globs(v, kp)
					case "deny":
						pr.Tools.Deny = p.globs(v, kp)
					default:
						p.unknownProfileKey(v, kp, key, toolsFields)
					}
				})
			case "groups":
				pr.Groups = nonEmpty(p.strings(v, fp, false))
			case "users":
				pr.Users = nonEmpty(p.strings(v, fp, false))
			default:
				p.unknownProfileKey(v, fp, key, profileFields)
			}
		})
		out = append(out, pr)
	})
	return out
}

// profileFields are a profile's settings.
var profileFields = []string{"servers", "tools", "groups", "users"}

// unknownProfileKey reports a key a profile does not have: an error, not the
// warning of a server entry's unknown field, since a setting of access left out
// silently would let people see what it was meant to keep from them.
func (p *parser) unknownProfileKey(v *hujson.Value, fp, key string, known []string) {
	if k := nearMiss(key, known); k != "" {
		p.errAt(v, fp, "unknown setting: did you mean %q?", k)
		return
	}
	p.errAt(v, fp, "unknown setting (it takes %s)", joinList(quoteAll(known)))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// checkProfileServers reports each server a profile names that the config does
// not have.
func (p *parser) checkProfileServers(cfg *Config) {
	have := map[string]bool{}
	var names []string
	for _, s := range cfg.Servers {
		have[s.Name] = true
		names = append(names, strconv.Quote(s.Name))
	}
	for _, r := range p.serverRefs {
		if have[r.name] {
			continue
		}
		if len(names) == 0 {
			p.errAt(r.v, r.path, "unknown server %q: the config has no servers", r.name)
			continue
		}
		p.errAt(r.v, r.path, "unknown server %q (the config has %s)", r.name, joinList(names))
	}
}

// joinList is "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	out := items[0]
	for _, s := range items[1 : len(items)-1] {
		out += ", " + s
	}
	return out + " and " + items[len(items)-1]
}

// nonEmpty drops the empty strings (a bad element, reported already).
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
