// Real token shapes of every secret family agtmux redacts (random values in
// each family's format, never live credentials), each in the text a user
// or an agent would show it in. Shared by tests/core/redact_test.cc (the
// redactor's exact output) and tests/agg/daemon/secrets_test.cc (the bytes
// of every file agtmux writes after a run through the real programs).
#pragma once

#include <string>
#include <vector>

namespace agt::test {

struct SecretSample {
  std::string rule;    // the redaction rule that must catch it
  std::string text;    // where it appears
  std::string secret;  // the part of `text` that must be gone (replaced by the rule's marker)
};

inline const std::vector<SecretSample>& SecretSamples() {
  static const std::vector<SecretSample> samples = [] {
    const std::string ant =
        "sk-ant-api03-nFIGLj5M7YYpHCOTHUtuJvbipRdkJAWZ4moUxm_yI5B_KGnplJJpdu0ol29vX6N_631mG8YE5_is_I4cZ2cSV8HTMyf8GAA";
    const std::string oat =
        "sk-ant-oat01-mXmeyNdaKTGoeszaDGHxFAQLVeuzU_XFXO_eF28RlHnqzgsBH_5qWgnGV21q4ClswscCTf07I8PjUhmi2ogviaNfrWta57-";
    const std::string proj =
        "sk-proj-cLkIFKaEaTopYW5LSQdGrKNB4di4RX2G1zdW8FXpCEyGjFl6gdyK26CijxV6zXnU8BSQ-Ngw6rT3BlbkFJJ8NgthdN_ULVwqdAiqD"
        "NZ8SwSFTQ3obfNIvMzzoCXK4oXo4jEhAWykqU9pklDCnr88OXiUpRIv";
    const std::string jwt =
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZ3RtdXgtdGVzdCIsImlhdCI6MTc2NDAwMDAwMH0."
        "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy";
    const std::string rsa =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq3v9x1B7mQ2cJk8sJv0Qe3yE2c8pXoLqV0iYw3hYp1fK3a9c\n"
        "Qe3yE2c8pXoLqV0iYw3hYp1fK3a9cMIIEowIBAAKCAQEAq3v9x1B7mQ2cJk8sJv0\n-----END RSA PRIVATE KEY-----";
    const std::string openssh =
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACCmZ2J4dGVzdGtleWFndG11eHRlc3RrZXlhZ3RtdXgAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    const std::string encrypted =
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQIagtmuxTESTkeyAgIIADAM\n"
        "-----END ENCRYPTED PRIVATE KEY-----";
    const std::string pgp =
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGagtmuxARAAtestkeyZm9vYmFyYmF6cXV4Zm9vYmFy\n=ab12\n"
        "-----END PGP PRIVATE KEY BLOCK-----";
    const std::string ec_cut = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIAgtmuxTestKeyCutOffByTheCaptureZm9vYmFy";
    return std::vector<SecretSample>{
        {"anthropic_api_key", "export ANTHROPIC_API_KEY=" + ant, ant},
        {"anthropic_api_key", "CLAUDE_CODE_OAUTH_TOKEN=" + oat, oat},
        {"openai_api_key", "OPENAI_API_KEY=\"" + proj + "\"", proj},
        {"openai_api_key", "client = OpenAI(api_key='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')",
         "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"},
        {"openai_api_key", "OPENROUTER_API_KEY: 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",
         "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"},
        {"stripe_key",
         "stripe.api_key = \"sk_live_519mCqCF7TyWyazKp2TesfGMKnXQVHE88Z848ATZDvxy3KETVqyrxlbiUshF0U71P8FQdoE7bdiAP7W2"
         "lMm3Slycnsi71cuueG9\"",
         "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"},
        {"stripe_key", "curl -u rk_test_51n73bgUfJXaWoJAj4dvvKMZANA1NbOIEb52db9gTBmNMaZOigtubcIUm1DXQu: https://api.stripe.com",
         "rk_test_51n73bgUfJXaWoJAj4dvvKMZANA1NbOIEb52db9gTBmNMaZOigtubcIUm1DXQu"},
        {"stripe_key", "STRIPE_WEBHOOK_SECRET=whsec_lps9r089EAm4FRVYnGlYNForEkcfRyvF",
         "whsec_lps9r089EAm4FRVYnGlYNForEkcfRyvF"},
        {"aws_access_key_id", "aws_access_key_id = AKIALL71US18VADWC86P", "AKIALL71US18VADWC86P"},
        {"aws_access_key_id", "export AWS_ACCESS_KEY_ID=ASIAB9BDVE7KV5YYIVZM", "ASIAB9BDVE7KV5YYIVZM"},
        {"aws_secret_access_key", "aws_secret_access_key = pqWZzMpTiNIK5Ff5oXoWXQpQlLCNBnP/6hJLLqRN",
         "pqWZzMpTiNIK5Ff5oXoWXQpQlLCNBnP/6hJLLqRN"},
        {"github_token", "git clone https://ghp_qREfgCE9WratP86yr3uTRjjfrMN4H3k7mWFM@github.com/o/r",
         "ghp_qREfgCE9WratP86yr3uTRjjfrMN4H3k7mWFM"},
        {"github_token", "GH_TOKEN=gho_38mTRZIzryAu0gg7JGEuhoAk5zCb7KUZU3Q7", "gho_38mTRZIzryAu0gg7JGEuhoAk5zCb7KUZU3Q7"},
        // After an escaped newline in a JSON string (a hook's raw payload).
        {"github_token", "{\"output\":\"pushed\\nghp_zymMlopiWfqUyHRSIf8NFmAUNLnY5Yx0y3Rn\\nok\"}", "ghp_zymMlopiWfqUyHRSIf8NFmAUNLnY5Yx0y3Rn"},
        {"github_token", "Authorization: token ghs_Wq2ZWwMTtEBV9zr9qD0ZzlsUXnDAUyQJKCrl",
         "ghs_Wq2ZWwMTtEBV9zr9qD0ZzlsUXnDAUyQJKCrl"},
        {"github_token",
         "fine-grained 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",
         "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"},
        {"gitlab_token", "git remote add origin https://oauth2:glpat-c7_9CzjV1bqPZLL3fahX@gitlab.com/g/p.git",
         "glpat-c7_9CzjV1bqPZLL3fahX"},
        {"gitlab_token", "deploy with gldt-eh4FeshI7sHptJnPELju now", "gldt-eh4FeshI7sHptJnPELju"},
        {"slack_token", "SLACK_BOT_TOKEN: xoxb-9668704896198-4102959071618-jLj5XAeL91KQec85QoxJpo7i",
         "xoxb-9668704896198-4102959071618-jLj5XAeL91KQec85QoxJpo7i"},
        {"slack_token", "user xoxp-1333925497392-0061647167750-5380255063860-8411673376a38e7a6e2ef32a3030001f",
         "xoxp-1333925497392-0061647167750-5380255063860-8411673376a38e7a6e2ef32a3030001f"},
        {"slack_token",
         "SLACK_APP_TOKEN=xapp-1-A0YL4AZKYOQ-2765849171858-16dbac6ae0913bc32592f207a5ebf6e1c4459f4d725ffc86f4cf7bc7436ce535",
         "xapp-1-A0YL4AZKYOQ-2765849171858-16dbac6ae0913bc32592f207a5ebf6e1c4459f4d725ffc86f4cf7bc7436ce535"},
        {"slack_token", "post to https://hooks.slack.com/services/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 today",
         "https://hooks.slack.com/services/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"},
        {"npm_token", "//registry.npmjs.org/:_authToken=npm_DI1DQZtSh1hc05qjJvmaStf7ECCEGJnaRW9M",
         "npm_DI1DQZtSh1hc05qjJvmaStf7ECCEGJnaRW9M"},
        {"huggingface_token", "HF_TOKEN=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", "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"},
        {"google_api_key", "GEMINI_API_KEY=AIzaCNxGBYIIYDIhTMGGnIxIt_D4ywf7RHYToKf", "AIzaCNxGBYIIYDIhTMGGnIxIt_D4ywf7RHYToKf"},
        {"google_api_key", "client_secret: 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", "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"},
        {"google_api_key",
         "Authorization: Bearer ya29.a0geP5548ayLTj2Lg0YJ8AGjf2bN4U1yh_CVKGYvzlQSAnfNQD4vBlpe9ApDwdcu_sjbtrhaAyYzeifiFr",
         "ya29.a0geP5548ayLTj2Lg0YJ8AGjf2bN4U1yh_CVKGYvzlQSAnfNQD4vBlpe9ApDwdcu_sjbtrhaAyYzeifiFr"},
        {"service_token", "DIGITALOCEAN_TOKEN=dop_v1_445e14c58a86bbc501ba866fcef1b8b4825b1bf6f8392e11f1375ba6c0cc3222",
         "dop_v1_445e14c58a86bbc501ba866fcef1b8b4825b1bf6f8392e11f1375ba6c0cc3222"},
        {"service_token", "docker login -u me --password-stdin < dckr_pat_mf4tR6KR6Vzv7LxEt4WSo4gijnG",
         "dckr_pat_mf4tR6KR6Vzv7LxEt4WSo4gijnG"},
        {"service_token",
         "password = pypi-AgEIcHlwaS5vcmcODhjWYoDHFVy2QtNb3YM7yvGombpuvdFFau6C_i6F24o4XzdRizogV-P5E72Ac_66JL40C",
         "pypi-AgEIcHlwaS5vcmcODhjWYoDHFVy2QtNb3YM7yvGombpuvdFFau6C_i6F24o4XzdRizogV-P5E72Ac_66JL40C"},
        {"service_token", "SHOPIFY_ACCESS=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", "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"},
        {"service_token", "SENDGRID=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",
         "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"},
        {"service_token", "VAULT_TOKEN=hvs.Uj3sNNkSbxvysclEJOnJiO5J", "hvs.Uj3sNNkSbxvysclEJOnJiO5J"},
        {"service_token", "GROQ_API_KEY=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",
         "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"},
        {"service_token", "XAI_API_KEY=xai-4vjTElOYc1A6i3jQTdSVRFhf5iQ7qazoFZC9OpiTNjC9FwDWKchA0zWxAm1m6Ln6QloVz3nJJ4H5xOhX",
         "xai-4vjTElOYc1A6i3jQTdSVRFhf5iQ7qazoFZC9OpiTNjC9FwDWKchA0zWxAm1m6Ln6QloVz3nJJ4H5xOhX"},
        {"service_token", "LINEAR_API_KEY=lin_api_gCSheB3DpqnLAV92rkm1TsAA44ERV3OgdEnorVCc",
         "lin_api_gCSheB3DpqnLAV92rkm1TsAA44ERV3OgdEnorVCc"},
        {"service_token", "# AGE-SECRET-KEY-131THRL8MLR7B12FE4O9TWRVDT9JSFA0ZF7994AB87RSZ8LG8PB5HQOTYII",
         "AGE-SECRET-KEY-131THRL8MLR7B12FE4O9TWRVDT9JSFA0ZF7994AB87RSZ8LG8PB5HQOTYII"},
        {"jwt", "session " + jwt + " expired", jwt},
        {"private_key", "key:\n" + rsa + "\nend", rsa},
        {"private_key", openssh + "\n", openssh},
        {"private_key", "x " + encrypted, encrypted},
        {"private_key", pgp, pgp},
        {"private_key", "captured: " + ec_cut, ec_cut},
        {"private_key", "{\"key\":\"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n\"}",
         "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----"},
        {"url_credentials", "postgres://admin:yGPJuOM2ZYFTuU3g@db.internal:5432/app", "yGPJuOM2ZYFTuU3g"},
        {"url_credentials", "REDIS_URL=redis://:AdaiKE7mKLjWBnZC@cache:6379/0", "AdaiKE7mKLjWBnZC"},
        {"bearer_token", "curl -H 'Authorization: Bearer J.C8W5JdBqL6Guf3I995P79tIw4QbMCg5dKeQpbJ' https://api",
         "J.C8W5JdBqL6Guf3I995P79tIw4QbMCg5dKeQpbJ"},
        {"basic_auth", "Authorization: Basic 2saVVB3DkQ52u9IvnDcigssM", "2saVVB3DkQ52u9IvnDcigssM"},
        {"authorization_header", "Proxy-Authorization: Negotiate YIIBhgYGKwYBBQUCoIIBejCCAXagMDAu",
         "Negotiate YIIBhgYGKwYBBQUCoIIBejCCAXagMDAu"},
        {"http_header_secret", "X-Api-Key: ba98170f3a1693721dc15915bb1f46a0", "ba98170f3a1693721dc15915bb1f46a0"},
        {"http_header_secret", "Cookie: session=5ca44d19af9554343a6278093ecc84ee",
         "session=5ca44d19af9554343a6278093ecc84ee"},
        {"password_assignment", "DB_PASSWORD=7OYkNZz1HXhZMy^B", "7OYkNZz1HXhZMy^B"},
        {"password_assignment", "PGPASSWORD=cGwh9oU3nlL26J psql -h db", "cGwh9oU3nlL26J"},
        {"password_assignment", "MY_API_KEY=PuMyxj6YLruGn1xLyq", "PuMyxj6YLruGn1xLyq"},
        {"password_assignment", "psql --db-password=Y6LgkZjQZn7PzeaTBcyl", "Y6LgkZjQZn7PzeaTBcyl"},
        {"password_assignment", "password: Ga4hnaIMJP4AZiQ", "Ga4hnaIMJP4AZiQ"},
        {"password_assignment", "{\"client_secret\": \"UYf96ZQDxFwx0Jt0urikVt\"}", "\"UYf96ZQDxFwx0Jt0urikVt\""},
        {"password_assignment", "MYSQL_PWD=c9hYepLnex mysql", "c9hYepLnex"},
        // Inside a JSON string (a hook's raw payload): the quotes come escaped.
        {"password_assignment", "\"command\":\"export DB_PASSWORD=\\\"Zq8Lm2Wx9Kp4\\\" && make\"",
         "\\\"Zq8Lm2Wx9Kp4"},
        {"password_assignment", "{\\\"api_key\\\": \\\"Hx5Nc8Vb2Qt7Ry\\\"}", "\\\"Hx5Nc8Vb2Qt7Ry"},
        {"password_assignment", "Server=db;Database=app;User Id=sa;Password=Kq7Rw2Zp9Lm4;", "Kq7Rw2Zp9Lm4"},
        {"secret_flag", "mysql --password RT2FGcCjKxjd app", "RT2FGcCjKxjd"},
        {"secret_flag", "tool --api-key 'Vb8nQ2xL5kR9' run", "'Vb8nQ2xL5kR9'"},
        {"mysql_password_flag", "mysql -u root -pHUNTER2MYSQLPASS appdb", "HUNTER2MYSQLPASS"},
        {"mysql_password_flag", "$ mysqldump -h db.local -u admin -pQw3rty9Zx7 shop > shop.sql", "Qw3rty9Zx7"},
        {"curl_user_password", "curl -s -u admin:CURLBASICPASSWORD99 https://api.example.com/x", "CURLBASICPASSWORD99"},
        {"curl_user_password", "curl --user=ci:Zp4Lm8Qr2Wx6 -X POST https://ci.local", "Zp4Lm8Qr2Wx6"},
        {"sshpass_password", "sshpass -p SSHPASSSECRET77 ssh deploy@10.0.0.5", "SSHPASSSECRET77"},
    };
  }();
  return samples;
}

}  // namespace agt::test
