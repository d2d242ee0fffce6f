package conversation_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session"
)

// lineFrontEnd is a whole front end: it renders a turn's stream as lines on out, and
// reads a person's decisions and answers, one a line, from in.
type lineFrontEnd struct {
	in  *bufio.Reader
	out io.Writer
}

func (f lineFrontEnd) ask(question string) string {
	fmt.Fprint(f.out, question)
	line, _ := f.in.ReadString('\n')
	line = strings.TrimSpace(line)
	fmt.Fprintln(f.out, line)
	return line
}

func (f lineFrontEnd) render(t *conversation.Turn) (*conversation.Result, error) {
	for e := range t.Events() {
		switch e.Kind {
		case conversation.ToolFinished:
			fmt.Fprintf(f.out, "%s: %s\n", e.Name, e.Result)
		case conversation.ApprovalRequired:
			allow := f.ask(fmt.Sprintf("allow %s %s? ", e.Name, e.Approval.Arguments)) == "y"
			_, _ = t.Decide(e.CallID, allow, "") // "" : the model reads that the user declined
		case conversation.QuestionAsked:
			q := e.Question
			fmt.Fprintf(f.out, "%s asks: %s\n", q.Server, q.Message)
			for { // until the form takes the answer
				var fields []string
				for _, fd := range q.Form.Fields {
					fields = append(fields, fmt.Sprintf("%q: %s", fd.Name, f.ask(fd.Name+"? ")))
				}
				err := t.Answer(q.ID, conversation.Reply{Action: "accept", Content: []byte("{" + strings.Join(fields, ",") + "}")})
				if err == nil {
					break
				}
				fmt.Fprintln(f.out, "not taken:", err)
			}
		case conversation.Answered:
			fmt.Fprintln(f.out, "answer:", e.Text)
		}
	}
	return t.Wait()
}

// A front end of its own renders a turn's stream: it decides a call that the
// server's "approve" lists, and answers the form the server asks during another call.
// The model is a fake OpenAI-compatible server; the tools a real MCP server's.
func Example() {
	ctx := context.Background()
	hotel := mcp.NewServer(&mcp.Implementation{Name: "hotel"}, nil)
	mcp.AddTool(hotel, &mcp.Tool{Name: "cancel_booking", Description: "Cancels a booking."},
		func(context.Context, *mcp.CallToolRequest, struct{ ID string }) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "cancelled"}}}, nil, nil
		})
	mcp.AddTool(hotel, &mcp.Tool{Name: "book_room", Description: "Books a room, asking the guest which."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Which room?", RequestedSchema: map[string]any{
				"type": "object", "required": []string{"nights"}, "properties": map[string]any{
					"nights": map[string]any{"type": "integer", "minimum": 1}}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %v", res.Action, res.Content)}}}, nil, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	web := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return hotel }, nil)}
	go web.Serve(ln)
	defer web.Close()

	h := hub.New(&config.Config{Servers: []config.Server{{Name: "hotel", Transport: config.HTTP,
		URL: "http://" + ln.Addr().String(), Approve: []string{"cancel_*"}}}}, nil)
	defer h.Close()
	h.SetCapabilities(&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}})
	h.AddPeer(&agent.ServerRequests{}) // a server's question finds the turn whose call it came in
	if err := h.Start(ctx); err != nil {
		log.Fatal(err)
	}

	llm, err := fakellm.NewOpenAI("127.0.0.1:0", fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "cancel_booking", Arguments: `{"ID":"b7"}`}}},
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c2", Name: "book_room", Arguments: `{}`}}},
		fakellm.Reply{Text: "Done: cancelled b7, booked a room."}))
	if err != nil {
		log.Fatal(err)
	}
	defer llm.Close()
	model, err := openai.New("any", &openai.Options{BaseURL: llm.URL})
	if err != nil {
		log.Fatal(err)
	}
	store := session.NewMemory()
	defer store.Close()
	if err := store.Create(ctx, &session.Session{ID: "guest"}); err != nil {
		log.Fatal(err)
	}
	runner := conversation.New(agent.New(model, store, &agent.Options{Tools: h}),
		&conversation.Options{NeedsApproval: conversation.ServerPolicy(h.Server)})

	front := lineFrontEnd{in: bufio.NewReader(strings.NewReader("y\n0\n2\n")), out: os.Stdout}
	if _, err := front.render(runner.Start(ctx, &conversation.Request{Session: "guest", User: "swap my booking"})); err != nil {
		log.Fatal(err)
	}
	// Output:
	// allow cancel_booking {"ID":"b7"}? y
	// cancel_booking: cancelled
	// hotel asks: Which room?
	// nights? 0
	// not taken: "content.nights": minimum: 0 is less than 1
	// nights? 2
	// book_room: accept map[nights:2]
	// answer: Done: cancelled b7, booked a room.
}
