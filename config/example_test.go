package config_test

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/config"
)

func ExampleParse() {
	data := []byte(`{
		// JSONC: comments and trailing commas are fine.
		"mcpServers": {
			"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"]},
			"remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
			"legacy": {"url": "https://old.example.com/sse", "disabled": true},
		},
	}`)
	env := map[string]string{"HOME": "/home/me", "TOKEN": "t0ken"}
	cfg, err := config.Parse(data, "mcp.json", &config.Options{LookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		fmt.Println(s.Name, s.Transport, s.Disabled)
	}
	// Output:
	// filesystem stdio false
	// remote http false
	// legacy sse true
}
