package api

import "time"

// SetEventsHeartbeat makes s's event streams send their keep-alive comment every d.
func SetEventsHeartbeat(s *Server, d time.Duration) { s.live.heartbeat.Store(int64(d)) }

// StaticTokenUser is the user an MCP session of the static token is bound to.
const StaticTokenUser = staticTokenUser
