package hub_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/hub"
)

// FuzzURI: PrefixURI is reversible for any server name and URI (names with "/",
// "%", spaces or any letters included).
func FuzzURI(f *testing.F) {
	f.Add("files", "file:///etc/hosts")
	f.Add("a/b", "switchboard://x/y")
	f.Add("日本 %2F", "")
	f.Fuzz(func(t *testing.T, server, uri string) {
		if server != "" {
			s, u, ok := hub.SplitURI(hub.PrefixURI(server, uri))
			if !ok || s != server || u != uri {
				t.Fatalf("SplitURI(PrefixURI(%q, %q)) = %q, %q, %v", server, uri, s, u, ok)
			}
		}
	})
}
