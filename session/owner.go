package session

import "context"

// OwnerTeller is a Store that can tell a session's owner without reading its history:
// a service with identities asks before every turn and every delete whose the session
// is, and a long history is not read for one column. The stores here all are.
type OwnerTeller interface {
	// Owner is session id's Owner; ErrNotFound when there is no such session.
	Owner(ctx context.Context, id string) (string, error)
}

// OwnerOf is session id's owner: from st's Owner when it has one (OwnerTeller), else
// from Get.
func OwnerOf(ctx context.Context, st Store, id string) (string, error) {
	if ot, ok := st.(OwnerTeller); ok {
		return ot.Owner(ctx, id)
	}
	s, err := st.Get(ctx, id)
	if err != nil {
		return "", err
	}
	return s.Owner, nil
}
