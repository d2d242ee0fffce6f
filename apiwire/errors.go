package apiwire

// ErrorBody is every error of the API's own routes: {"error": {"code", "message"}},
// with the closest names in "suggestions" for an unknown tool or server.
type ErrorBody struct {
	Error Error `json:"error"`
}

// Error is one error of the API: Code says what went wrong for a program to decide
// on (one of the Code constants), Message says it for a person. Status is the
// response's HTTP status, which the body does not carry.
type Error struct {
	Status      int      `json:"-"`
	Code        string   `json:"code"`
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// The codes of [Error], with the status each comes with (docs/api.md, "Errors").
const (
	CodeBadJSON          = "bad_json"           // 400: malformed JSON, a value of the wrong type, an unknown field
	CodeBadRequest       = "bad_request"        // 400: a bad parameter or value
	CodeUnsupported      = "unsupported"        // 400: a compatible API's feature that Switchboard does not offer
	CodeUnauthorized     = "unauthorized"       // 401: no token, or one refused
	CodeForbidden        = "forbidden"          // 403: a cross-site request, a foreign Host, an admin's endpoint
	CodeSignInNeeded     = "sign_in_needed"     // 403: the person has not signed in to a "perUser" server
	CodeNotFound         = "not_found"          // 404: an unknown endpoint, server, session, approval or question
	CodeUnknownTool      = "unknown_tool"       // 404: an unknown tool, with the closest names in Suggestions
	CodeMethodNotAllowed = "method_not_allowed" // 405
	CodeTimeout          = "timeout"            // 408: the request body came too slowly
	CodeBusy             = "busy"               // 409: a session running a turn
	CodeExists           = "exists"             // 409: a session id or a server name already taken
	CodeConfigInvalid    = "config_invalid"     // 409: a server edit refused while the config file does not load as it is
	CodeNoSignIn         = "no_sign_in"         // 409: a sign-in asked of a server that takes none
	CodeTooLarge         = "too_large"          // 413: a body over the size limit
	CodeFormatFailed     = "format_failed"      // 422: the catalog cannot be written in the format asked for
	CodeRateLimited      = "rate_limited"       // 429: a person past the requests per minute
	CodeTooManyFollowers = "too_many_followers" // 429: one more follow stream of a log than allowed
	CodeInternal         = "internal"           // 500
	CodeStoreFailed      = "store_failed"       // 500: the session store failed
	CodeTurnFailed       = "turn_failed"        // 500: a turn failed otherwise than by its model
	CodeRestartFailed    = "restart_failed"     // 500 (503 when the service is closing)
	CodeNotSupported     = "not_supported"      // 501: a sign-in asked of a service that signs in to no server
	CodeModelFailed      = "model_failed"       // 502: the model failed the turn
	CodeSignInFailed     = "sign_in_failed"     // 502: a sign-in failed before its authorization URL was known
	CodeUpstreamError    = "upstream_error"     // 502: the server that owns a prompt or resource failed
	CodeNoModel          = "no_model"           // 503: no model configured (the message says how to configure one)
	CodeNoSessions       = "no_sessions"        // 503: the service keeps no sessions
	CodeUnavailable      = "unavailable"        // 503: the tool's server is not available, or the service is closing
	CodeCancelled        = "cancelled"          // 503: a turn cancelled at shutdown
)

// Anthropic's own codes for a message thread, which /v1/messages writes as Anthropic
// does, in error.details.error_code, and on which its SDKs act.
const (
	// CodeThreadUnsupported (400): a thread that cannot be kept (no session store
	// here); the SDKs' tool runner sends the whole conversation again without one.
	CodeThreadUnsupported = "thread_unsupported_request"
	// CodeThreadNotFound (404): no thread is kept at the message a request continues;
	// the SDKs send the whole conversation again in a new thread.
	CodeThreadNotFound = "thread_not_found"
)
