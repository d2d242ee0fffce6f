package session

import "fmt"

// Migrate brings a database store's schema from version up to date: migrations[i]
// takes it from version i to i+1, and exec runs one. A version newer than migrations
// know is refused (a newer Switchboard wrote it). The store reads and writes the
// version itself, in the transaction exec runs in.
func Migrate(version int, migrations []string, exec func(stmt string) error) error {
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this Switchboard knows (%d)", version, len(migrations))
	}
	for i := version; i < len(migrations); i++ {
		if err := exec(migrations[i]); err != nil {
			return fmt.Errorf("schema migration %d: %w", i+1, err)
		}
	}
	return nil
}
