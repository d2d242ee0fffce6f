// Package demo holds Switchboard's built-in demo MCP servers, so that the gateway can be
// tried out (and tested end to end) without installing any third-party server.
//
// Two servers are available, by name (see [Names]):
//
//   - clock: current_time, convert_time and add_duration, over IANA time zones.
//   - notes: put_note, get_note, list_notes, delete_note and search_notes, a small
//     notebook persisted in one JSON file ([DefaultNotesFile], or
//     $SWITCHBOARD_NOTES_FILE). Every call re-reads the file; writes take an exclusive
//     flock on "<file>.lock" and replace the file atomically, so several server
//     processes may share one notebook.
//
// [NewServer] builds a server as an *mcp.Server of the official Go SDK; [Run] serves one
// over stdin/stdout, which is what "switchboard demo-server NAME" does. [Config] returns
// the configuration that launches both servers as children of the switchboard
// executable itself.
//
// Tool failures (an unknown zone, a malformed time, a missing note, a corrupt notes
// file, ...) are reported as tool results with IsError set, never as protocol errors.
package demo
