//go:build unix

package hub_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestOwned: the prompts, resources and templates of two servers that offer the same
// ones, each with the server that offers it, in the order of the hub's own lists;
// ResourceServer names the server a read of an exposed URI goes to.
func TestOwned(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "a", "--extras"), testserver.Stdio(t, "b", "--extras")), nil)

	prompts, owned := h.Prompts(), h.OwnedPrompts()
	if len(owned) != 4 || len(owned) != len(prompts) {
		t.Fatalf("%d owned prompts of %d", len(owned), len(prompts))
	}
	for i, o := range owned {
		if o.Item != prompts[i] {
			t.Errorf("owned prompt %d is %s, Prompts has %s", i, o.Item.Name, prompts[i].Name)
		}
	}
	if got := owned[0].Server + owned[2].Server; got != "ab" {
		t.Errorf("prompt servers: %+v", owned)
	}

	resources, ownedRes := h.Resources(), h.OwnedResources()
	if len(ownedRes) != 12 || len(ownedRes) != len(resources) {
		t.Fatalf("%d owned resources of %d", len(ownedRes), len(resources))
	}
	for i, o := range ownedRes {
		server, _, _ := hub.SplitURI(o.Item.URI)
		if o.Item != resources[i] || o.Server != server {
			t.Errorf("owned resource %d: %s of %s", i, o.Item.URI, o.Server)
		}
		if got, ok := h.ResourceServer(o.Item.URI); !ok || got != o.Server {
			t.Errorf("ResourceServer(%s) = %q, %v; want %s", o.Item.URI, got, ok, o.Server)
		}
	}

	templates, ownedTmpl := h.ResourceTemplates(), h.OwnedResourceTemplates()
	if len(ownedTmpl) != 2 || ownedTmpl[0].Item != templates[0] || ownedTmpl[0].Server != "a" || ownedTmpl[1].Server != "b" {
		t.Errorf("owned templates: %+v", ownedTmpl)
	}
	if got, ok := h.ResourceServer("switchboard://b/test://extras/items/9"); !ok || got != "b" {
		t.Errorf("ResourceServer of b's item = %q, %v", got, ok)
	}
	if got, ok := h.ResourceServer("nothing://here"); ok {
		t.Errorf("ResourceServer of an unknown URI = %q", got)
	}
}
