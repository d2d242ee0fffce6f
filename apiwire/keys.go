package apiwire

import "time"

// KeyPrefix begins every application key: a key is recognisable where it should not
// be (a log, a commit) and tells the service to look it up among its keys.
const KeyPrefix = "sbk_"

// Key is an application key as GET /v1/keys lists it: never its secret, nor
// anything made from it.
type Key struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Profiles are the config's profiles the key reaches, exactly.
	Profiles []string  `json:"profiles"`
	Created  time.Time `json:"created"`
	// Expires is when the key stops working; absent: never.
	Expires time.Time `json:"expires,omitzero"`
	// LastUsed is when a request last came with the key (to the minute); absent:
	// none has.
	LastUsed time.Time `json:"lastUsed,omitzero"`
}

// Keys is GET /v1/keys' answer, oldest first. Never null.
type Keys struct {
	Keys []Key `json:"keys"`
}

// KeyRequest is POST /v1/keys' body.
type KeyRequest struct {
	Name     string   `json:"name"`
	Profiles []string `json:"profiles"`
	// ExpiresIn is how long the key works: a duration in Go's form ("720h",
	// "90m") or whole days ("30d"); "" or absent: until it is revoked.
	ExpiresIn string `json:"expiresIn,omitempty"`
}

// NewKey is POST /v1/keys' answer (201): the key made, with its secret, the one time
// the service shows it. Send it as "Authorization: Bearer KEY".
type NewKey struct {
	Key
	Secret string `json:"key"`
}
