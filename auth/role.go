package auth

import (
	"fmt"
	"strings"
)

// Role is what a user may do. Roles are cumulative: each one allows what the
// ones below it allow.
type Role string

const (
	RoleTeacher Role = "teacher" // reads reports, checks files
	RoleStaff   Role = "staff"   // + uploads, edits and deletes documents
	RoleAdmin   Role = "admin"   // + triggers runs, sees restricted texts, manages users
)

// rank orders the roles; a role not in it ranks 0 and allows nothing.
var rank = map[Role]int{RoleTeacher: 1, RoleStaff: 2, RoleAdmin: 3}

// Roles returns the roles from the least to the most privileged.
func Roles() []Role { return []Role{RoleTeacher, RoleStaff, RoleAdmin} }

// ParseRole reads a role name as typed by a person (case and surrounding
// spaces do not matter).
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if rank[r] == 0 {
		return "", fmt.Errorf("unknown role %q: use one of %s", s, roleList())
	}
	return r, nil
}

// Allows reports whether a user with role r may do what needs role min. It
// fails closed: an unknown role allows nothing, and nothing allows an unknown
// min, so a typo in a role check denies access instead of granting it.
func (r Role) Allows(min Role) bool {
	have, need := rank[r], rank[min]
	return have > 0 && need > 0 && have >= need
}

// valid reports whether r is one of Roles.
func (r Role) valid() bool { return rank[r] > 0 }

// roleList is "teacher, staff, admin", for messages.
func roleList() string {
	names := make([]string, 0, len(rank))
	for _, r := range Roles() {
		names = append(names, string(r))
	}
	return strings.Join(names, ", ")
}
