package game

// Delivery is how a message type travels.
type Delivery uint8

const (
	Guaranteed Delivery = iota + 1
	Unreliable
	Sync
)

// Delivery is how messages of type t travel.
func (t MsgType) Delivery() Delivery {
	switch t {
	case MsgPingSummary, MsgHashReport, MsgFrameSync:
		return Unreliable
	case MsgPause:
		return Sync
	}
	return Guaranteed
}
