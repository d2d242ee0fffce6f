package hub_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/logging"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// A failed result that quotes a configured secret comes back with it masked, as
// the text of a failed call's error is: the model, the API's clients and the stored
// history never see it. A tool's successful answer is left as it is.
func TestErrorResultsMaskSecrets(t *testing.T) {
	t.Parallel()
	const secret = "vault-key-Hu72pQe" // shaped like no well-known token: masked as configured
	srv := testserver.Stdio(t, "vault")
	srv.Env = map[string]string{"VAULT_KEY": secret}
	cfg := cfgOf(srv)
	logging.AddSecrets(cfg.Secrets()...) // as the CLI does with the config it loads
	h, _ := startHub(t, cfg, nil)
	got := callError(t, h, "fail", map[string]any{"text": "the vault refused the key $VAULT_KEY"})
	if got != "the vault refused the key "+logging.Mask {
		t.Errorf("error result %q, want the key masked", got)
	}
	if strings.Contains(got, secret) {
		t.Errorf("the error result shows the secret: %q", got)
	}
}
