//lint:file-ignore SA1019 sampling is deprecated in the 2026-07-28 protocol but lives in the versions clients use today; the test asks it of a gateway client.

package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestServeAsksTheRightPerson: in the service host.API assembles (serve's), a
// server's question goes to whoever made the call: during a session's turn to the
// session (listed under its inputs, answered over the API), during a gateway
// client's call to that client, which the agent's peer of the hub leaves it to
// (it declined them all before).
func TestServeAsksTheRightPerson(t *testing.T) {
	t.Setenv("HOST_TEST_MODEL_KEY", "model-key-Hw7")
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	srv := testserver.Stdio(t, "ts", "--ask")
	srv.ToolTimeout = time.Minute
	h := host.New(&config.Config{Servers: []config.Server{srv}}, &host.Options{
		Model:    &config.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: fake.URL},
		Sessions: &config.SessionSettings{Store: "memory"},
	})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, gateway.AllForwardable()); err != nil {
		t.Fatal(err)
	}
	api, err := h.API(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serveAPI(t, api)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(path, body string) string {
		res, err := client.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return ""
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}

	// A session's turn: the question waits in the session until answered.
	var sess struct{ ID string }
	if err := json.Unmarshal([]byte(post("/v1/sessions", `{}`)), &sess); err != nil || sess.ID == "" {
		t.Fatalf("session: %v", err)
	}
	reply := make(chan string, 1)
	go func() { reply <- post("/v1/sessions/"+sess.ID+"/messages", `{"content": "call ask {}"}`) }()
	var waiting struct {
		Inputs []struct{ RequestID string } `json:"inputs"`
	}
	testenv.WaitFor(t, "the question listed in the session", 30*time.Second, func() bool {
		res, err := client.Get(base + "/v1/sessions/" + sess.ID)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		return json.NewDecoder(res.Body).Decode(&waiting) == nil && len(waiting.Inputs) == 1
	})
	post("/v1/sessions/"+sess.ID+"/inputs/"+waiting.Inputs[0].RequestID, `{"action": "accept", "content": {"name": "ada"}}`)
	if got := <-reply; !strings.Contains(got, `ask: action=accept content={\"color\":\"green\",\"count\":3,\"name\":\"ada\",\"size\":\"l\",\"subscribe\":true}`) {
		t.Errorf("the turn's reply: %s", got)
	}

	// A gateway client's call: its own client is asked.
	asked := make(chan string, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "gw"}}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"message": "Who calls?"}})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError || !strings.Contains(text.String(), `action=accept`) || !strings.Contains(text.String(), `"name":"gw"`) {
		t.Errorf("the gateway client's call: %q (error %v), want its own answer", text.String(), res.IsError)
	}
	select {
	case m := <-asked:
		if m != "Who calls?" {
			t.Errorf("the client was asked %q", m)
		}
	default:
		t.Errorf("the gateway's client was never asked")
	}
}

// A sampling request that a gateway client's call caused goes to that client, not to
// the model of the host's agent, even on a server allowed to sample ("sampling":
// true: the agent answers for its own turns' calls only).
func TestServeSamplingGoesToItsCaller(t *testing.T) {
	t.Setenv("HOST_TEST_MODEL_KEY", "model-key-Sm4")
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	srv := config.Server{Name: "conf", Transport: config.Stdio, Command: testenv.EverythingServer(t), Sampling: true,
		InitTimeout: 20 * time.Second, ToolTimeout: time.Minute}
	h := host.New(&config.Config{Servers: []config.Server{srv}}, &host.Options{
		Model:    &config.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: fake.URL},
		Sessions: &config.SessionSettings{Store: "memory"},
	})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, gateway.AllForwardable()); err != nil {
		t.Fatal(err)
	}
	api, err := h.API(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serveAPI(t, api)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c := mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "the-client's", Content: &mcp.TextContent{Text: "from the gateway's client"}}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// The server asks in an input request of its result (the host's connection
	// speaks 2026-07-28 with it); the gateway asks its client of 2025-11-25 with a
	// request of its own.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_sampling"})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError || !strings.Contains(text.String(), "from the gateway's client") {
		t.Errorf("test_input_required_result_sampling through the gateway: %q (error %v), want the gateway client's answer, not the host's model", text.String(), res.IsError)
	}
}
