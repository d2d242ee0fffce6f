package upstream

import (
	"io"
	"log/slog"
	"strings"
	"testing"
)

// The counter finds the ordered notifications in an event stream however it is cut
// into reads and whatever line endings it uses — a long one too, by the method at
// its start — and nothing else: not requests, not responses that mention a
// notification, not other notifications, not a long event whose method comes only
// after what is gathered.
func TestNoteCounter(t *testing.T) {
	t.Parallel()
	log := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	progress := `{"method":"notifications/progress","params":{"progressToken":"t","progress":1},"jsonrpc":"2.0"}`
	request := `{"jsonrpc":"2.0","id":7,"method":"notifications/message","params":{}}`
	response := `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"notifications/progress"}]}}`
	cancelled := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
	huge := strings.Repeat("y", maxNoteEvent)
	long := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + huge + `"}}`
	longLate := `{"jsonrpc":"2.0","params":{"level":"info","data":"` + huge + `"},"method":"notifications/message"}`
	longResponse := `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"notifications/message ` + huge + `"}]}}`
	longResponseLate := `{"result":{"content":[{"type":"text","text":"notifications/message ` + huge + `"}]},"jsonrpc":"2.0","id":10}`
	// The log message split over two data lines is one event: JSON allows the newline.
	split := `{"jsonrpc":"2.0",` + "\ndata: " + `"method":"notifications/message","params":{"level":"info","data":"z"}}`
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		stream := strings.Join([]string{
			": comment", "event: message", "id: 1", "data: " + log, "",
			"data:" + progress, "", // no space after the colon
			"data: " + request, "",
			"data: " + response, "",
			"data: " + cancelled, "",
			"data: " + long, "",
			"data: " + longLate, "",
			"data: " + longResponse, "",
			"data: " + longResponseLate, "",
			"data: " + long[:10], "data: " + long[10:], "", // long, over two data lines
			"data: " + split, "",
			"data: " + log, // an event the stream ends before its blank line: not dispatched
		}, eol)
		const want = 5 // log, progress, long, long over two lines, split
		for _, size := range []int{1, 2, 7, 4096, 100 << 10} {
			c := &conn{}
			r := &noteCounter{ReadCloser: io.NopCloser(&chunks{s: stream, size: size}), c: c}
			got, err := io.ReadAll(r)
			if err != nil || string(got) != stream {
				t.Fatalf("eol %q, reads of %d: the stream did not pass through unchanged (%v)", eol, size, err)
			}
			if n := c.notesRead.Load(); n != want {
				t.Errorf("eol %q, reads of %d: counted %d, want %d", eol, size, n, want)
			}
		}
	}
}

// chunks reads s at most size bytes at a time.
type chunks struct {
	s    string
	size int
}

func (c *chunks) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := min(len(p), c.size, len(c.s))
	copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

// Over stdio the lines are counted as jsonLines hands them on, banners dropped.
func TestJSONLinesCountNotes(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		"Server starting...",
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"notifications/message"}]}}`,
		`{"method":"notifications/progress","params":{"progressToken":"t","progress":1},"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("y", 2*maxNoteEvent) + `"}}`,
	}, "\n") + "\n"
	c := &conn{}
	got, err := io.ReadAll(newJSONLines(io.NopCloser(&chunks{s: lines, size: 5}), newJunkLog(slog.New(slog.DiscardHandler), junkBurst, junkInterval), c))
	if err != nil || strings.Contains(string(got), "Server starting") || strings.Count(string(got), "\n") != 5 {
		t.Fatalf("lines handed on: %q (%v)", got, err)
	}
	if n := c.notesRead.Load(); n != 3 {
		t.Errorf("counted %d, want 3", n)
	}
}
