module github.com/ackattack/ackattack

go 1.26

require (
	github.com/google/uuid v1.6.0
	go.uber.org/goleak v1.3.0
)
