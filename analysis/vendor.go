package analysis

import "strings"

// vendors are the built-in vendor, organization and product names: cloud
// providers, their best-known products, and large platforms that incident
// reports name, in English and in Korean spelling. Technologies that are not
// one vendor's product (kafka, kubernetes, postgres, redis) are not vendors:
// they say what kind of system failed.
var vendors = setOf(
	// providers
	"aws", "amazon", "azure", "microsoft", "google", "gcp", "cloudflare", "fastly", "akamai", "oracle", "ibm",
	"alibaba", "digitalocean", "linode", "hetzner", "ovh", "vercel", "netlify", "heroku",
	// AWS products
	"kinesis", "cloudwatch", "s3", "ec2", "dynamodb", "elb", "alb", "nlb", "ebs", "rds", "aurora", "sqs", "sns",
	"lambda", "cognito", "eventbridge", "route53", "cloudfront", "ecs", "eks", "redshift", "elasticache",
	// Google and Microsoft products
	"gke", "gce", "bigquery", "spanner", "aks", "entra", "office365", "outlook", "onedrive", "gmail",
	"youtube",
	// platforms and software vendors
	"github", "gitlab", "bitbucket", "atlassian", "jira", "confluence", "slack", "discord", "zoom", "datadog",
	"pagerduty", "splunk", "newrelic", "honeycomb", "crowdstrike", "okta", "auth0", "twilio", "stripe", "paypal",
	"facebook", "meta", "instagram", "whatsapp", "twitter", "reddit", "dropbox", "spotify", "roblox", "salesforce",
	"shopify", "mongodb", "circleci", "travis", "buildkite", "posthog", "mailchimp", "kakao", "naver",
	"coupang",
	// Korean spellings
	"아마존", "구글", "마이크로소프트", "애저", "클라우드플레어", "카카오", "네이버", "깃허브", "깃랩", "슬랙",
	"페이스북", "메타", "오라클", "디스코드", "쿠팡", "키네시스", "클라우드워치", "람다",
	"다이나모디비", "데이터독",
)

// IsVendor reports whether word (lower-cased as needed; a token's Norm or
// Whole) is a built-in vendor, organization or product name.
func IsVendor(word string) bool {
	if vendors[word] {
		return true
	}
	return vendors[strings.ToLower(word)]
}

// NameParts splits an organization's name as written into the names it is
// known by: "Meta (Facebook)" gives "Meta" and "Facebook", so that an
// Analyzer's Extra leaves out each.
func NameParts(org string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(org, func(r rune) bool { return r == '(' || r == ')' || r == ',' || r == '/' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}
