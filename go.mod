module github.com/ackattack/ackattack

go 1.26
