import HeraldCrypto
import FCMEmulator
import HeraldFCM
import HeraldJSON
import Testing

@Suite struct ServiceAccountTests {
    private func keyFile(removing field: String? = nil, replacing: (String, JSON)? = nil) -> [UInt8] {
        var object = TestKeys.primary.serviceAccountJSON(
            projectID: "herald-test", clientEmail: "sender@herald-test.iam.gserviceaccount.com", tokenURI: "https://oauth2.googleapis.com/token"
        ).objectValue!
        if let field { object[field] = nil }
        if let (name, value) = replacing { object[name] = value }
        return JSON.object(object).serialized()
    }

    @Test func readsGooglesFields() throws {
        let account = try ServiceAccount(json: keyFile())
        #expect(account.clientEmail == "sender@herald-test.iam.gserviceaccount.com")
        #expect(account.projectID == "herald-test")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(account.privateKeyID == "emulator-key")
    }

    @Test(arguments: ["client_email", "private_key", "private_key_id", "token_uri", "project_id"])
    func namesAMissingField(_ field: String) {
        #expect(throws: ServiceAccountError.missingField(field)) { try ServiceAccount(json: keyFile(removing: field)) }
    }

    @Test func saysThePrivateKeyIsBadWithoutQuotingIt() {
        let secretish = "-----BEGIN PRIVATE KEY-----\nTk9UQUtFWQ==\n-----END PRIVATE KEY-----\n"
        do {
            _ = try ServiceAccount(json: keyFile(replacing: ("private_key", .string(secretish))))
            Issue.record("a broken PEM was accepted")
        } catch {
            #expect(error.description.contains("\"private_key\" is invalid"))
            #expect(!error.description.contains("Tk9UQUtFWQ"))
        }
    }

    @Test func refusesAPublicKeyInPlaceOfThePrivateOne() {
        #expect(throws: ServiceAccountError.self) {
            try ServiceAccount(json: keyFile(replacing: ("private_key", .string(TestKeys.primary.publicKeyPEM))))
        }
    }

    @Test func refusesSomethingThatIsNotJSON() {
        #expect(throws: ServiceAccountError.self) { try ServiceAccount(json: Array("{\"client_email\": ".utf8)) }
    }
}

@Suite struct JWTAssertionTests {
    @Test func isAnRS256JWTThatTheMatchingPublicKeyVerifies() throws {
        let account = try TestKeys.serviceAccount(tokenURI: "https://oauth2.googleapis.com/token")
        let jwt = try JWTAssertion.make(for: account, issuedAt: 1_700_000_000)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!jwt.contains("="))

        let header = try JSON.parse(Base64URL.decode(parts[0])!)
        #expect(header == ["alg": "RS256", "typ": "JWT", "kid": "emulator-key"])
        let claims = try JSON.parse(Base64URL.decode(parts[1])!)
        #expect(claims["iss"] == "sender@herald-test.iam.gserviceaccount.com")
        #expect(claims["aud"] == "https://oauth2.googleapis.com/token")
        #expect(claims["scope"] == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims["iat"]?.intValue == 1_700_000_000)
        #expect(claims["exp"]?.intValue == 1_700_003_600)

        let signed = Array("\(parts[0]).\(parts[1])".utf8)
        let signature = Base64URL.decode(parts[2])!
        #expect(try RSAPublicKey(pem: TestKeys.primary.publicKeyPEM).verifySHA256(signed, signature: signature))
        #expect(try !RSAPublicKey(pem: TestKeys.other.publicKeyPEM).verifySHA256(signed, signature: signature))
    }
}
