package pii

import "strings"

// Category says what kind of personal data a Finding is. A reference
// carries it (pii:<category>:…), so a step can tell an email from a phone
// number without resolving anything.
type Category string

// The categories a Finding has. CategoryPersonal is the catch-all for a
// denied key or a path that names no better one.
const (
	CategoryEmail        Category = "email"
	CategoryPhone        Category = "phone"
	CategoryCard         Category = "card"
	CategoryIBAN         Category = "iban"
	CategoryName         Category = "name"
	CategoryAddress      Category = "address"
	CategoryBirthdate    Category = "birthdate"
	CategoryIP           Category = "ip"
	CategoryGovernmentID Category = "government_id"
	CategoryAccount      Category = "account"
	CategorySecret       Category = "secret"
	CategoryPersonal     Category = "personal"
)

// Categories lists every Category, the only ones a reference may carry.
var Categories = []Category{
	CategoryEmail, CategoryPhone, CategoryCard, CategoryIBAN, CategoryName, CategoryAddress,
	CategoryBirthdate, CategoryIP, CategoryGovernmentID, CategoryAccount, CategorySecret,
	CategoryPersonal,
}

// Valid says whether c is one of Categories.
func (c Category) Valid() bool {
	switch c {
	case CategoryEmail, CategoryPhone, CategoryCard, CategoryIBAN, CategoryName, CategoryAddress,
		CategoryBirthdate, CategoryIP, CategoryGovernmentID, CategoryAccount, CategorySecret,
		CategoryPersonal:
		return true
	}
	return false
}

// deniedCategory is the category of each DefaultDenylist key, normalised.
var deniedCategory = map[string]Category{
	"email": CategoryEmail, "emailaddress": CategoryEmail, "receiptemail": CategoryEmail,
	"customeremail": CategoryEmail, "billingemail": CategoryEmail,
	"phone": CategoryPhone, "phonenumber": CategoryPhone, "mobile": CategoryPhone,
	"customerphone": CategoryPhone,
	"name":          CategoryName, "firstname": CategoryName, "lastname": CategoryName,
	"middlename": CategoryName, "fullname": CategoryName, "givenname": CategoryName,
	"familyname": CategoryName, "displayname": CategoryName, "customername": CategoryName,
	"accountholdername": CategoryName, "cardholdername": CategoryName, "username": CategoryName,
	"login":   CategoryName,
	"address": CategoryAddress, "billingaddress": CategoryAddress, "shippingaddress": CategoryAddress,
	"customeraddress": CategoryAddress, "line1": CategoryAddress, "line2": CategoryAddress,
	"street": CategoryAddress, "postalcode": CategoryAddress, "zip": CategoryAddress,
	"zipcode": CategoryAddress, "shipping": CategoryAddress, "customershipping": CategoryAddress,
	"billingdetails": CategoryAddress,
	"ip":             CategoryIP, "ipaddress": CategoryIP, "clientip": CategoryIP,
	"ssn": CategoryGovernmentID, "ssnlast4": CategoryGovernmentID, "taxid": CategoryGovernmentID,
	"taxids": CategoryGovernmentID, "customertaxids": CategoryGovernmentID,
	"vatid": CategoryGovernmentID, "nationalid": CategoryGovernmentID,
	"idnumber": CategoryGovernmentID, "personalidnumber": CategoryGovernmentID,
	"passportnumber": CategoryGovernmentID,
	"dateofbirth":    CategoryBirthdate, "dob": CategoryBirthdate, "birthdate": CategoryBirthdate,
	"cardnumber": CategoryCard, "iban": CategoryIBAN,
	"accountnumber": CategoryAccount, "routingnumber": CategoryAccount,
	"cvc": CategorySecret, "cvv": CategorySecret, "password": CategorySecret,
}

// keySuffixes are the endings of a normalised key that name personal data
// whatever comes before them ("customer_surname", "home_street_address",
// "x_forwarded_for"), with the category they name. An ending is taken only
// where no shorter, innocent word ends the same way: "ip" alone would take
// zip, tip, ship and membership, so only the ip endings that follow a
// word saying whose address it is are listed; "name" alone would take a
// product's or a file's name, so only a person's names are; "address" is
// listed but "addressid" (an id of an address record) does not end so.
var keySuffixes = []struct {
	suffix string
	cat    Category
}{
	{"emailaddress", CategoryEmail}, {"email", CategoryEmail}, {"emails", CategoryEmail},
	{"phone", CategoryPhone}, {"phones", CategoryPhone}, {"phonenumber", CategoryPhone},
	{"mobilenumber", CategoryPhone}, {"msisdn", CategoryPhone}, {"telephone", CategoryPhone},
	{"faxnumber", CategoryPhone},
	{"surname", CategoryName}, {"firstname", CategoryName}, {"lastname", CategoryName},
	{"fullname", CategoryName}, {"givenname", CategoryName}, {"familyname", CategoryName},
	{"middlename", CategoryName}, {"maidenname", CategoryName}, {"customername", CategoryName},
	{"holdername", CategoryName}, {"contactname", CategoryName}, {"recipientname", CategoryName},
	{"sendername", CategoryName}, {"buyername", CategoryName}, {"payername", CategoryName},
	{"payeename", CategoryName}, {"personname", CategoryName}, {"patientname", CategoryName},
	{"employeename", CategoryName}, {"membername", CategoryName}, {"guestname", CategoryName},
	{"passengername", CategoryName}, {"beneficiaryname", CategoryName},
	{"ipaddress", CategoryIP}, {"ipaddresses", CategoryIP}, {"ipaddr", CategoryIP},
	{"ipv4", CategoryIP}, {"ipv6", CategoryIP}, {"remoteaddr", CategoryIP},
	{"remoteaddress", CategoryIP}, {"remoteip", CategoryIP}, {"clientip", CategoryIP},
	{"clientips", CategoryIP}, {"userip", CategoryIP}, {"sourceip", CategoryIP},
	{"srcip", CategoryIP}, {"originip", CategoryIP}, {"realip", CategoryIP},
	{"forwardedfor", CategoryIP}, {"customerip", CategoryIP}, {"deviceip", CategoryIP},
	{"publicip", CategoryIP}, {"peerip", CategoryIP}, {"lastip", CategoryIP},
	{"loginip", CategoryIP}, {"signupip", CategoryIP}, {"requestip", CategoryIP},
	{"address", CategoryAddress}, {"addresses", CategoryAddress}, {"street", CategoryAddress},
	{"streetname", CategoryAddress}, {"streetnumber", CategoryAddress},
	{"addressline1", CategoryAddress}, {"addressline2", CategoryAddress},
	{"postcode", CategoryAddress}, {"postalcode", CategoryAddress}, {"zipcode", CategoryAddress},
	{"birthday", CategoryBirthdate}, {"birthdate", CategoryBirthdate},
	{"dateofbirth", CategoryBirthdate}, {"birthdt", CategoryBirthdate}, {"dob", CategoryBirthdate},
	{"ssn", CategoryGovernmentID}, {"passportnumber", CategoryGovernmentID},
	{"cardnumber", CategoryCard}, {"iban", CategoryIBAN}, {"accountnumber", CategoryAccount},
	{"password", CategorySecret},
}

// KeyCategory returns the category of the personal data a key names, and
// whether it names any: a DefaultDenylist key, or a key ending in one of
// the endings the package lists ("customer_surname", "streetAddress",
// "remote_addr", "birthday"). key is compared normalised (NormaliseKey).
// "email_verified", "zip", "tip", "shipping_rate", "recipient" and
// "address_id" name none: what they hold is scrubbed by value only.
func KeyCategory(key string) (Category, bool) {
	k := NormaliseKey(key)
	if c, ok := deniedCategory[k]; ok {
		return c, true
	}
	return suffixCategory(k)
}

// suffixTable holds the indexes of keySuffixes by the last three bytes
// of each (open addressing, linear probing), so a key costs one probe,
// not a comparison with every ending.
var suffixTable = func() (t [suffixSlots]suffixSlot) {
	for i, e := range keySuffixes {
		tail := tail3(e.suffix)
		h := suffixHash(tail)
		for t[h].n > 0 && t[h].tail != tail {
			h = (h + 1) % suffixSlots
		}
		t[h].tail = tail
		t[h].idx = append(t[h].idx, uint8(i))
		t[h].n++
	}
	return t
}()

const suffixSlots = 256

// suffixLast marks the bytes an ending ends with: most keys end with
// another one and cost one load.
var suffixLast = func() (t [256]bool) {
	for _, e := range keySuffixes {
		t[e.suffix[len(e.suffix)-1]] = true
	}
	return t
}()

// suffixSlot holds the endings sharing one tail.
type suffixSlot struct {
	tail uint32
	n    uint8
	idx  []uint8
}

func suffixHash(tail uint32) int { return int(tail * 2654435761 >> 24) }

func tail3(k string) uint32 {
	n := len(k)
	return uint32(k[n-3])<<16 | uint32(k[n-2])<<8 | uint32(k[n-1])
}

// suffixCategory is the key-ending rule of KeyCategory on a normalised key.
// Within one group of endings the longer comes first ("emailaddress"
// before "address"), so the first hit is the right one.
func suffixCategory(k string) (Category, bool) {
	if len(k) < 3 {
		return "", false
	}
	if !suffixLast[k[len(k)-1]] {
		return "", false
	}
	tail := tail3(k)
	for h := suffixHash(tail); suffixTable[h].n > 0; h = (h + 1) % suffixSlots {
		sl := &suffixTable[h]
		if sl.tail != tail {
			continue
		}
		for _, i := range sl.idx {
			if strings.HasSuffix(k, keySuffixes[i].suffix) {
				return keySuffixes[i].cat, true
			}
		}
		return "", false
	}
	return "", false
}
