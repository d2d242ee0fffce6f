package host

import (
	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/config"
)

// Access is the profiles of the config ("switchboard": {"profiles"}) as the one
// access.Policy of the Host: the API takes it (api.Options.Access), and it follows
// the config file as the servers do (Follow, and the edits of the servers), so that
// a change of profiles holds at once for every request and session.
func (h *Host) Access() *access.Policy { return h.access }

// profilesOf is the access package's form of the config's profiles.
func profilesOf(cfg *config.Config) []access.Profile {
	out := make([]access.Profile, 0, len(cfg.Settings.Profiles))
	for _, p := range cfg.Settings.Profiles {
		out = append(out, access.Profile{Name: p.Name, Servers: p.Servers, Tools: p.Tools, Groups: p.Groups, Users: p.Users})
	}
	return out
}
