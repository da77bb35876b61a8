// Package hoststest runs scripts/pfold-hosts for real: an sshd on two
// loopback addresses stands for two hosts.
//
// # What it must never import
//
// Of pfold's packages, only internal/testenv (for sshd and ssh-keygen):
// it builds the binaries with the go command and runs the script with
// them, as a user would.
package hoststest
