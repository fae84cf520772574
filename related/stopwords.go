package related

import "strings"

// indonesianStop are Indonesian function words: pronouns, prepositions,
// conjunctions, auxiliaries, particles and common adverbs, after the Tala
// (2003) stop list, trimmed to words that carry no topic. Snowball's Go port
// has none for Indonesian.
var indonesianStop = setOf(`ada adalah adanya agak agar akan akhirnya aku
akulah amat anda andalah antar antara antaranya apa apaan apabila apakah
apalagi atas atau ataukah ataupun awal bagai bagaikan bagaimana bagaimanakah
bagi bagian bahkan bahwa bahwasanya baik banyak baru bawah beberapa begini
beginilah begitu begitulah belum benar berada berapa berbagai beri berikut
berkata bersama besar betul biasa biasanya bila bilamana bisa boleh bukan
bukankah bukanlah bukannya cara cukup dahulu dalam dan dapat dari daripada
datang dekat demi demikian dengan depan di dia diakah dialah diantara diri
dirinya disini disitu dua dulu empat enggak entah guna hal hampir hanya
hanyalah harus haruslah hingga ia ialah ibarat ikut ini inikah inilah itu
itukah itulah jadi jangan jauh jelas jika jikalau juga jumlah justru kala
kalau kalaulah kalaupun kali kami kamilah kamu kamulah kan kapan kapankah
kapanpun karena karenanya kasus kata ke kecil kedua keluar kembali kemudian
kenapa kepada kepadanya ketika khususnya kini kinilah kira kita kitalah
kok lagi lagian lah lain lainnya lalu lama lanjut lebih lewat lima luar
macam maka makanya makin malah malahan mampu mana manakala manalagi masa
masih masing mau maupun melainkan melakukan melalui memang mengapa mereka
merekalah merupakan meski meskipun mungkin namun nanti nantinya nyaris oleh
olehnya pada padahal padanya paling para pasti patut per perlu pernah
pertama pula pun punya rasa rupanya saat saatnya saja sajalah salah sama
sambil sampai sana sangat sangatlah satu saya sayalah se sebab sebabnya
sebagai sebagaimana sebagainya sebagian sebaliknya sebanyak sebelum
sebelumnya sebenarnya seberapa sebesar sebuah secara sedang sedangkan
sedikit segala segera sehingga sejak sejumlah sekali sekalipun sekarang
sekitar selain selalu selama seluruh seluruhnya semakin sementara sempat
semua semuanya sendiri sendirinya seolah seorang sepanjang seperti
sepertinya sering seringnya serta sesuatu sesudah setelah setiap siapa
siapakah siapapun sini situ suatu sudah sudahlah supaya tadi tak tanpa
tapi telah tentang tentu tentunya tersebut tertentu tetapi tiap tiga tidak
tidakkah tidaklah tiga toh turut untuk waktu walau walaupun wong yaitu
yakni yang`)

func setOf(words string) map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(words) {
		m[w] = struct{}{}
	}
	return m
}
