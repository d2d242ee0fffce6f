package config

import (
	"slices"
	"testing"
)

// TestNearMissFields: an unknown field one or two typos from a known one the entry
// does not set, or another host's name for one, is an error at the field with the
// name meant (a server meant disabled would otherwise run); other unknown fields stay
// warnings, at their place.
func TestNearMissFields(t *testing.T) {
	tests := []struct {
		name, entry string
		errs, warns []string
	}{
		{"disabeld", `{"command": "c", "disabeld": true}`,
			[]string{`mcp.json:1:36: servers.x.disabeld: unknown field: did you mean "disabled"?`}, nil},
		{"comand alone says only that", `{"comand": "c"}`,
			[]string{`mcp.json:1:20: servers.x.comand: unknown field: did you mean "command"?`}, nil},
		{"case", `{"command": "c", "Disabled": true}`,
			[]string{`mcp.json:1:36: servers.x.Disabled: unknown field: did you mean "disabled"?`}, nil},
		{"two edits", `{"command": "c", "toolTimout": 5, "hearbeet": 1}`,
			[]string{`mcp.json:1:36: servers.x.toolTimout: unknown field: did you mean "toolTimeout"?`,
				`mcp.json:1:53: servers.x.hearbeet: unknown field: did you mean "heartbeat"?`}, nil},
		{"windsurf", `{"serverUrl": "https://h/mcp"}`,
			[]string{`mcp.json:1:20: servers.x.serverUrl: unknown field: did you mean "url"? ("serverUrl" is Windsurf's name for it)`}, nil},
		{"gemini", `{"httpUrl": "https://h/mcp"}`,
			[]string{`mcp.json:1:20: servers.x.httpUrl: unknown field: did you mean "url"? ("httpUrl" is Gemini CLI's name for it)`}, nil},
		{"opencode", `{"command": "c", "environment": {"A": "1"}}`,
			[]string{`mcp.json:1:36: servers.x.environment: unknown field: did you mean "env"? ("environment" is opencode's name for it)`}, nil},
		{"oauth", `{"url": "https://h", "oauth": {"clientSecert": "s", "clientId": "c"}}`,
			[]string{`mcp.json:1:50: servers.x.oauth.clientSecert: unknown field: did you mean "clientSecret"?`}, nil},
		{"tools", `{"command": "c", "tools": {"alow": ["a*"]}}`,
			[]string{`mcp.json:1:46: servers.x.tools.alow: unknown field: did you mean "allow"?`}, nil},
		// Warnings, with their place.
		{"far off", `{"command": "c", "colour": "red"}`, nil,
			[]string{`mcp.json:1:36: servers.x.colour: unknown field (ignored)`}},
		{"the field meant is set too", `{"command": "c", "disabled": true, "disabeld": true}`, nil,
			[]string{`mcp.json:1:54: servers.x.disabeld: unknown field (ignored)`}},
		{"another host's with ours set", `{"url": "https://h/mcp", "serverUrl": "https://h/mcp"}`, nil,
			[]string{`mcp.json:1:44: servers.x.serverUrl: unknown field (ignored)`}},
		{"short names take one edit at most", `{"command": "c", "dev": {"watch": "*.ts"}}`, nil,
			[]string{`mcp.json:1:36: servers.x.dev: unknown field (ignored)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"servers": {"x": ` + tt.entry + `}}`
			if tt.errs != nil {
				if got := parseErrs(t, src, nil); !slices.Equal(got, tt.errs) {
					t.Errorf("errors = %q, want %q", got, tt.errs)
				}
				return
			}
			if cfg := mustParse(t, src, nil); !slices.Equal(cfg.Warnings, tt.warns) {
				t.Errorf("warnings = %q, want %q", cfg.Warnings, tt.warns)
			}
		})
	}
}
