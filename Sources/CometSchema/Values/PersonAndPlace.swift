/// A person as calendars know one: a display name with an email address and/or a phone number.
public struct PersonValue: Sendable, Hashable {
    public var name: String?
    public var email: String?
    public var phone: String?

    public init(name: String? = nil, email: String? = nil, phone: String? = nil) {
        self.name = name
        self.email = email
        self.phone = phone
    }

    /// "Ada Lovelace <ada@example.org>", or whichever parts exist.
    public var displayText: String {
        switch (name, email ?? phone) {
        case let (name?, contact?): return "\(name) <\(contact)>"
        case let (name?, nil): return name
        case let (nil, contact?): return contact
        case (nil, nil): return ""
        }
    }
}

/// A place: a name, a postal address, and/or coordinates (WGS 84 degrees).
public struct PlaceValue: Sendable, Hashable {
    public var name: String?
    public var address: String?
    public var latitude: Double?
    public var longitude: Double?

    public init(name: String? = nil, address: String? = nil, latitude: Double? = nil, longitude: Double? = nil) {
        self.name = name
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
    }

    public var displayText: String {
        [name, address].compactMap { $0 }.joined(separator: ", ")
    }
}
