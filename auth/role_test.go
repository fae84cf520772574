package auth

import (
	"strings"
	"testing"
)

func TestRoleAllows(t *testing.T) {
	// want[r][min]: may a user with role r do what needs min?
	want := map[Role]map[Role]bool{
		RoleTeacher: {RoleTeacher: true, RoleStaff: false, RoleAdmin: false},
		RoleStaff:   {RoleTeacher: true, RoleStaff: true, RoleAdmin: false},
		RoleAdmin:   {RoleTeacher: true, RoleStaff: true, RoleAdmin: true},
	}
	all := append(Roles(), "", "root", "Admin")
	for _, r := range all {
		for _, min := range all {
			if got := r.Allows(min); got != want[r][min] { // absent: false
				t.Errorf("%q.Allows(%q) = %v, want %v", r, min, got, want[r][min])
			}
		}
	}
}

func TestParseRole(t *testing.T) {
	if got := Roles(); len(got) != 3 || got[0] != RoleTeacher || got[1] != RoleStaff || got[2] != RoleAdmin {
		t.Fatalf("Roles() = %v, want teacher, staff, admin", got)
	}
	for in, want := range map[string]Role{"teacher": RoleTeacher, " Staff ": RoleStaff, "ADMIN": RoleAdmin} {
		if got, err := ParseRole(in); got != want || err != nil {
			t.Errorf("ParseRole(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "root", "administrator", "teachers"} {
		_, err := ParseRole(in)
		if err == nil || !strings.Contains(err.Error(), "teacher, staff, admin") {
			t.Errorf("ParseRole(%q) error = %v, want one listing the valid roles", in, err)
		}
	}
}
