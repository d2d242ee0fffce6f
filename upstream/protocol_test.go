package upstream

//lint:file-ignore SA1019 roots and sampling are deprecated in the 2026-07-28 protocol but live in the versions clients use today.

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// narrowed declares to a server of 2026-07-28 what the connection can answer for the
// client a request is for: of sampling, elicitation and roots, those both declare, as
// the client declares them, on the wire's form (roots absent when not declared).
func TestNarrowedCapabilities(t *testing.T) {
	all := &mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
	}
	tests := []struct {
		name      string
		own, call *mcp.ClientCapabilities
		want      string
	}{
		{"the caller declares nothing", all, &mcp.ClientCapabilities{}, `{}`},
		{"sampling only", all, &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{Tools: &mcp.SamplingToolsCapabilities{}}}, `{"sampling":{"tools":{}}}`},
		{"form elicitation and roots", all, &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}, RootsV2: &mcp.RootCapabilities{}},
			`{"elicitation":{"form":{}},"roots":{}}`},
		{"roots the old way", all, func() *mcp.ClientCapabilities {
			c := &mcp.ClientCapabilities{}
			c.Roots.ListChanged = true
			return c
		}(), `{"roots":{"listChanged":true}}`},
		{"nothing the connection cannot answer", &mcp.ClientCapabilities{}, all, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(narrowed(tt.own, tt.call))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("narrowed = %s, want %s", b, tt.want)
			}
		})
	}
}
