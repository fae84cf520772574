package pangen

import (
	"strings"
	"sync"
)

// synonymGroups are sets of words that replace one another in most
// contexts of expository English: a small hand-made thesaurus, so that
// generating a corpus needs no lexical database. Each line is a group;
// every word maps to the others of its line.
const synonymGroups = `
use employ utilize apply
make create build produce construct
show display demonstrate present
need require
want wish desire
allow permit enable let
help assist aid support
start begin commence initiate
end finish complete conclude
stop halt cease
get obtain acquire receive
give provide supply offer
keep retain hold maintain
change alter modify adjust
try attempt
find discover locate
see observe notice
look examine inspect
think believe consider suppose
know understand realize
say state mention note
tell inform notify
call invoke
run execute
write compose
read parse
check verify confirm
choose select pick
add append include insert
remove delete eliminate drop
move shift transfer
return yield
handle manage process
contain hold include
describe explain outline
happen occur
seem appear
ensure guarantee
avoid prevent
reduce decrease lower
increase raise grow expand
improve enhance
explain clarify
mean signify imply
work function operate
fix repair correct
break fail
big large huge
small little tiny
fast quick rapid swift
slow sluggish
easy simple straightforward
hard difficult tough
important significant crucial essential
different distinct various
same identical equal
similar alike comparable
new novel fresh
old former previous earlier
main primary principal chief
whole entire complete full
many numerous several
often frequently commonly
usually normally typically generally
quickly rapidly swiftly
slowly gradually
also additionally furthermore moreover
however nevertheless nonetheless
because since
therefore thus hence consequently
instead rather
maybe perhaps possibly
almost nearly
only merely solely
really truly actually
probably likely
clearly obviously evidently
directly immediately
certain specific particular
common ordinary usual
possible feasible
necessary required needed
correct right accurate proper
wrong incorrect mistaken
safe secure
useful helpful handy
enough sufficient adequate
whole entire
able capable
way method manner approach
kind type sort
part piece portion section
problem issue difficulty
result outcome consequence
example instance
idea notion concept
goal aim purpose objective
reason cause
rule principle
step stage phase
place location position spot
area region zone
error mistake fault
value amount quantity
number figure
list sequence series
group set collection
option choice alternative
feature characteristic property
detail particular
point moment
answer reply response
question query
task job chore
information data details
program application
user person individual
people persons individuals
house home dwelling
boy lad youngster
girl lass
said remarked replied
went walked proceeded
came arrived
took grabbed seized
looked glanced gazed
began started commenced
asked inquired
got obtained received
knew understood
thought believed supposed
felt sensed
saw noticed observed
told informed
tried attempted
found discovered
made created
used employed
gave handed provided
turned rotated
kept retained
left departed
seemed appeared
happy glad cheerful
sad unhappy gloomy
angry furious mad
afraid scared frightened
beautiful lovely pretty
quiet silent still
strange odd peculiar weird
sudden abrupt
suddenly abruptly
great grand splendid
little small slight
good fine decent
bad poor awful
`

var (
	thesaurusOnce sync.Once
	thesaurusMap  map[string][]string
)

// thesaurus maps a lower-case word to its synonyms.
func thesaurus() map[string][]string {
	thesaurusOnce.Do(func() {
		thesaurusMap = map[string][]string{}
		for _, line := range strings.Split(synonymGroups, "\n") {
			ws := strings.Fields(line)
			for _, w := range ws {
				for _, s := range ws {
					if s != w && !contains(thesaurusMap[w], s) {
						thesaurusMap[w] = append(thesaurusMap[w], s)
					}
				}
			}
		}
	})
	return thesaurusMap
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Synonyms are the thesaurus's synonyms of a lower-case word (nil for a
// word it does not know), for other generators (internal/shortans) that
// reword text as this package's synonym cases do. The slice is shared: do
// not modify it.
func Synonyms(word string) []string { return thesaurus()[word] }
