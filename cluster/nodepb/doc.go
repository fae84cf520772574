// Package nodepb is the generated gRPC code of the node protocol (node.proto).
// Regenerate with protoc 3.21+, protoc-gen-go v1.36.12 and
// protoc-gen-go-grpc v1.6.2 on PATH:
//
//	go generate ./cluster/nodepb
package nodepb
