module github.com/ackattack/ackattack

go 1.26.0

require (
	github.com/gdamore/tcell/v2 v2.13.10
	github.com/google/uuid v1.6.0
	github.com/gopacket/gopacket v1.7.7
	github.com/quic-go/quic-go v0.65.0
	github.com/rivo/tview v0.42.0
	go.uber.org/goleak v1.3.0
	golang.org/x/crypto v0.54.0
	golang.org/x/sys v0.47.0
	golang.org/x/text v0.40.0
)

require (
	github.com/gdamore/encoding v1.0.1 // indirect
	github.com/lucasb-eyer/go-colorful v1.3.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/term v0.45.0 // indirect
)
