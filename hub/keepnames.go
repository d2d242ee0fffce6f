package hub

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/logging"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// Names that clients hold. Under naming "auto" a name that two servers share is
// prefixed, and a fresh start decides it from the whole config at once. Once the
// catalog is in use, a server that joins (a reload, Add, a slow server past its init
// timeout, a new tool of list_changed) must not take a name from a running server:
// a client holding "create_entities" would find it gone. So, from the end of the
// start-up on, every tool keeps the name the catalog gave it (tool.NameInput.Keep),
// and a newcomer's colliding tools take the prefix, with a warning that names them.

// keptNames returns, for a rebuild at now, the name each tool has kept: its name in
// the catalog prev, else the name it had before its server left the catalog for a
// while (failed, restarted, replaced by a reload) when no tool has taken it since.
// It returns nil while the start-up still decides the names (prev was built while
// launched servers were starting, and their init timeout has not run out): the
// servers' speed must not decide who keeps a name. h.mu must be held.
func (h *Hub) keptNames(prev *catalog, now time.Time) map[tool.Key]string {
	if prev.startEnd.After(now) {
		return nil
	}
	kept := make(map[tool.Key]string, len(prev.tools))
	taken := make(map[string]bool, len(prev.tools))
	for _, t := range prev.tools {
		kept[tool.Key{Server: t.Server, Tool: t.OriginalName}] = t.Name
		taken[t.Name] = true
	}
	for _, k := range sortedKeys(h.pins) {
		if name := h.pins[k]; !taken[name] {
			if _, ok := kept[k]; !ok {
				kept[k] = name
				taken[name] = true
			}
		}
	}
	return kept
}

// pin remembers the names of cat, a catalog built after the start-up, beside those
// of tools that are away and whose names nobody has taken. h.mu must be held.
func (h *Hub) pin(cat *catalog) {
	pins := make(map[tool.Key]string, len(cat.tools))
	taken := make(map[string]bool, len(cat.tools))
	for _, t := range cat.tools {
		pins[tool.Key{Server: t.Server, Tool: t.OriginalName}] = t.Name
		taken[t.Name] = true
	}
	for k, name := range h.pins {
		if _, ok := pins[k]; !ok && !taken[name] {
			pins[k] = name
		}
	}
	h.pins = pins
}

// forget drops the names a server's tools kept: it left the config. h.mu must be held.
func (h *Hub) forget(server string) {
	for k := range h.pins {
		if k.Server == server {
			delete(h.pins, k)
		}
	}
}

// startEnd is when the start-up ends at the latest: the end of the init timeout of
// the last launched server still in its first start-up cycle; zero when none is.
// h.mu must be held.
func (h *Hub) startEnd(now time.Time) time.Time {
	var end time.Time
	for _, e := range h.inStartup(now) {
		if e.end.After(end) {
			end = e.end
		}
	}
	return end
}

// startingServer is a launched server in its first start-up cycle, within its init
// timeout, which ends at end.
type startingServer struct {
	sup *upstream.Supervisor
	end time.Time
}

// inStartup lists the launched servers still in their first start-up cycle and within
// their init timeout at now. h.mu must be held.
func (h *Hub) inStartup(now time.Time) []startingServer {
	var out []startingServer
	for _, s := range h.supervisors() {
		at, ok := h.launched[s]
		if !ok {
			continue // added by Add or Reload: nobody waits for it
		}
		select {
		case <-s.Settled():
			continue
		default:
		}
		// The state can say ready before Settled is closed (the catalog is published
		// first): a server whose tools are already served is not waited for.
		if st := s.State(); st == upstream.Ready || st == upstream.Failed || st == upstream.Disabled {
			continue
		}
		if end := at.Add(s.InitTimeout()); now.Before(end) {
			out = append(out, startingServer{s, end})
		}
	}
	return out
}

// warnPrefixed logs, per server, the tools new to the catalog that took the prefix
// because a running server's tool has their name. h.mu must be held.
func (h *Hub) warnPrefixed(inputs []tool.NameInput, names map[tool.Key]string, kept map[tool.Key]string) {
	if kept == nil || (h.naming != "" && h.naming != config.NamingAuto) {
		return
	}
	holder := make(map[string]string, len(kept)) // kept name → its server
	for k, name := range kept {
		holder[name] = k.Server
	}
	byServer := map[string][]string{}
	var servers []string
	for _, in := range inputs {
		plain := tool.PlainName(in.Tool)
		if in.Keep != "" || names[in.Key] == plain {
			continue
		}
		owner, taken := holder[plain]
		if !taken || owner == in.Server {
			continue
		}
		if byServer[in.Server] == nil {
			servers = append(servers, in.Server)
		}
		byServer[in.Server] = append(byServer[in.Server], fmt.Sprintf("%s → %s (%q has %s)", in.Tool, names[in.Key], owner, plain))
	}
	for _, s := range servers {
		h.log.Warn(`naming "auto": tools prefixed, their names are taken by running servers`,
			logging.KeyServer, s, "tools", strings.Join(byServer[s], ", "))
	}
}

func sortedKeys(m map[tool.Key]string) []tool.Key {
	keys := make([]tool.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Server != keys[j].Server {
			return keys[i].Server < keys[j].Server
		}
		return keys[i].Tool < keys[j].Tool
	})
	return keys
}
