<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AuditText</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="39"/>
        <source>Staff on the kiosk PC (%1)</source>
        <translation>Staff on the kiosk PC (%1)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="41"/>
        <source>HQ reviewer %1</source>
        <translation>HQ reviewer %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="41"/>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="43"/>
        <source>HQ</source>
        <translation>HQ</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="42"/>
        <source>Staff</source>
        <translation>Staff</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="42"/>
        <source>Staff on the kiosk PC</source>
        <translation>Staff on the kiosk PC</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="43"/>
        <source>The starter catalog</source>
        <translation>The starter catalog</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="44"/>
        <source>AI design</source>
        <translation>AI design</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="68"/>
        <source>%1 cleared the price of %2 (was %3).</source>
        <translation>%1 cleared the price of %2 (was %3).</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="70"/>
        <source>%1 set the price of %2 to %3 (it had none).</source>
        <translation>%1 set the price of %2 to %3 (it had none).</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="71"/>
        <source>%1 set the price of %2 to %3 (was %4).</source>
        <translation>%1 set the price of %2 to %3 (was %4).</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="73"/>
        <source>%1 hid %2 in this store.</source>
        <translation>%1 hid %2 in this store.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="74"/>
        <source>%1 showed %2 in this store again.</source>
        <translation>%1 showed %2 in this store again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="76"/>
        <source>%1 sent %2 to HQ for review.</source>
        <translation>%1 sent %2 to HQ for review.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="78"/>
        <source>%1 added %2 as a draft.</source>
        <translation>%1 added %2 as a draft.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="79"/>
        <source>%1 sent %2 for review.</source>
        <translation>%1 sent %2 for review.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="80"/>
        <source>%1 approved %2: it is on the shelf.</source>
        <translation>%1 approved %2: it is on the shelf.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="81"/>
        <source>%1 rejected %2.</source>
        <translation>%1 rejected %2.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="82"/>
        <source>%1 put %2 back on the shelf.</source>
        <translation>%1 put %2 back on the shelf.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="83"/>
        <source>%1 took %2 off the shelf.</source>
        <translation>%1 took %2 off the shelf.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="84"/>
        <source>%1 sent %2 back to draft.</source>
        <translation>%1 sent %2 back to draft.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="85"/>
        <source>%1 replaced the pictures of %2; it is a draft again.</source>
        <translation>%1 replaced the pictures of %2; it is a draft again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="86"/>
        <source>%1 replaced the pictures of %2.</source>
        <translation>%1 replaced the pictures of %2.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="87"/>
        <source>%1 removed %2.</source>
        <translation>%1 removed %2.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="88"/>
        <source>%1 updated %2 (now: %3).</source>
        <translation>%1 updated %2 (now: %3).</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="89"/>
        <source>%1 updated %2.</source>
        <translation>%1 updated %2.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="91"/>
        <source>%1: %2 %3.</source>
        <translation>%1: %2 %3.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="99"/>
        <source>%1 Reason: “%2”</source>
        <translation>%1 Reason: “%2”</translation>
    </message>
</context>
<context>
    <name>CaptureCodeLabel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="190"/>
        <source>Thank you. Your photo code: %1 (give it to our staff to delete the copy)</source>
        <translation>Thank you. Your photo code: %1 (give it to our staff to delete the copy)</translation>
    </message>
</context>
<context>
    <name>CapturesPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="93"/>
        <source>That is not a photo code (8 letters and digits, like K7QH-3MPX)</source>
        <translation>That is not a photo code (8 letters and digits, like K7QH-3MPX)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="94"/>
        <source>Not withdrawn: %1</source>
        <translation>Not withdrawn: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="99"/>
        <source>Photo %1 withdrawn and deleted from this kiosk; HQ deletes it at the next sync.</source>
        <translation>Photo %1 withdrawn and deleted from this kiosk; HQ deletes it at the next sync.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="100"/>
        <source>Photo %1 withdrawn; HQ and every kiosk delete it at the next sync.</source>
        <translation>Photo %1 withdrawn; HQ and every kiosk delete it at the next sync.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="116"/>
        <source>Take a snapshot of your hands on the mirror first.</source>
        <translation>Take a snapshot of your hands on the mirror first.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="120"/>
        <source>Keeping a copy…</source>
        <translation>Keeping a copy…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="126"/>
        <source>Nothing kept: no hands found in the last snapshot.</source>
        <translation>Nothing kept: no hands found in the last snapshot.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="128"/>
        <source>Nothing kept.</source>
        <translation>Nothing kept.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="130"/>
        <source>Kept as %1; it goes to HQ with the next sync.</source>
        <translation>Kept as %1; it goes to HQ with the next sync.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="146"/>
        <source>Withdraw a customer&apos;s photo</source>
        <translation>Withdraw a customer&apos;s photo</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="147"/>
        <source>Her photo code, e.g. K7QH-3MPX</source>
        <translation>Her photo code, e.g. K7QH-3MPX</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="148"/>
        <source>Withdraw</source>
        <translation>Withdraw</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="149"/>
        <source>Your own hands</source>
        <translation>Your own hands</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="152"/>
        <source>You consented on %1 to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping improve our nail model.</source>
        <translation>You consented on %1 to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping improve our nail model.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="154"/>
        <source>Consent once to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping improve our nail model; a code withdraws any of them.</source>
        <translation>Consent once to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping improve our nail model; a code withdraws any of them.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="156"/>
        <source>I consent</source>
        <translation>I consent</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="157"/>
        <source>Capture my hands from the last snapshot</source>
        <translation>Capture my hands from the last snapshot</translation>
    </message>
</context>
<context>
    <name>ComparePage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/compare_page.py" line="106"/>
        <source>Compare two styles</source>
        <translation>Compare two styles</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/compare_page.py" line="107"/>
        <source>Back to the mirror</source>
        <translation>Back to the mirror</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/compare_page.py" line="110"/>
        <source>Try this one</source>
        <translation>Try this one</translation>
    </message>
</context>
<context>
    <name>ConsentButton</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="142"/>
        <source>Keeping a copy…</source>
        <translation>Keeping a copy…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="143"/>
        <source>Not kept. Tap to try again</source>
        <translation>Not kept. Tap to try again</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="144"/>
        <source>No hands found in this photo: nothing kept</source>
        <translation>No hands found in this photo: nothing kept</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="145"/>
        <source>Help us improve the mirror</source>
        <translation>Help us improve the mirror</translation>
    </message>
</context>
<context>
    <name>ConsentSentence</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="164"/>
        <source>If you tap, we keep a copy of this photo cropped to your hands (faces blurred) for up to 180 days to improve our nail model; give the code we show you to any of our staff to have it deleted.</source>
        <translation>If you tap, we keep a copy of this photo cropped to your hands (faces blurred) for up to 180 days to improve our nail model; give the code we show you to any of our staff to have it deleted.</translation>
    </message>
</context>
<context>
    <name>CreditSettingsBox</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="187"/>
        <source>Asia</source>
        <translation>Asia</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="187"/>
        <source>Europe</source>
        <translation>Europe</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="187"/>
        <source>Americas</source>
        <translation>Americas</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="188"/>
        <source>Africa</source>
        <translation>Africa</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="188"/>
        <source>Australia</source>
        <translation>Australia</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="188"/>
        <source>Pacific</source>
        <translation>Pacific</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="189"/>
        <source>Indian Ocean</source>
        <translation>Indian Ocean</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="189"/>
        <source>Atlantic</source>
        <translation>Atlantic</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="190"/>
        <source>Antarctica</source>
        <translation>Antarctica</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="190"/>
        <source>Arctic</source>
        <translation>Arctic</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="190"/>
        <source>Other (UTC)</source>
        <translation>Other (UTC)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="196"/>
        <source>Store time zone (the daily cap&apos;s day)</source>
        <translation>Store time zone (the daily cap&apos;s day)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="197"/>
        <source>This computer&apos;s zone</source>
        <translation>This computer&apos;s zone</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="198"/>
        <source>Set by HQ for this store: ask HQ to change it.</source>
        <translation>Set by HQ for this store: ask HQ to change it.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="200"/>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="202"/>
        <source>Credits per image: %1</source>
        <translation>Credits per image: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="203"/>
        <source>Free (rendered on this kiosk)</source>
        <translation>Free (rendered on this kiosk)</translation>
    </message>
</context>
<context>
    <name>CreditsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="98"/>
        <source>No credits granted yet: generations are not limited by a balance</source>
        <translation>No credits granted yet: generations are not limited by a balance</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="102"/>
        <source>%1 credit(s) spent, %2 paid generation(s) of %3</source>
        <translation>%1 credit(s) spent, %2 paid generation(s) of %3</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="106"/>
        <source>%1 per customer session</source>
        <translation>%1 per customer session</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="109"/>
        <source>Credits are running low: %1 left (alert below %2). Ask HQ for a grant.</source>
        <translation>Credits are running low: %1 left (alert below %2). Ask HQ for a grant.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="147"/>
        <source>no cap</source>
        <translation>no cap</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="166"/>
        <source>Balance</source>
        <translation>Balance</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="166"/>
        <source>Held for running generations</source>
        <translation>Held for running generations</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="167"/>
        <source>Today</source>
        <translation>Today</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="167"/>
        <source>Limit</source>
        <translation>Limit</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="170"/>
        <source>Refresh</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="171"/>
        <source>Save limits</source>
        <translation>Save limits</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="172"/>
        <source>Paid generations per day (0: no cap)</source>
        <translation>Paid generations per day (0: no cap)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="173"/>
        <source>Per customer session (0: no cap)</source>
        <translation>Per customer session (0: no cap)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="174"/>
        <source>Alert when the balance is below</source>
        <translation>Alert when the balance is below</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Time</source>
        <translation>Time</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Credits</source>
        <translation>Credits</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="177"/>
        <source>Paid</source>
        <translation>Paid</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="177"/>
        <source>Task or grant</source>
        <translation>Task or grant</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="177"/>
        <source>Note</source>
        <translation>Note</translation>
    </message>
</context>
<context>
    <name>DiagnosticsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="83"/>
        <source>DISK FULL: %1 task result(s) wait to be saved. Free some space; they are saved then.</source>
        <translation>DISK FULL: %1 task result(s) wait to be saved. Free some space; they are saved then.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="87"/>
        <source>OK</source>
        <translation>OK</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="93"/>
        <source>OK, last synced %1</source>
        <translation>OK, last synced %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="94"/>
        <source>Offline since %1; the kiosk keeps its catalog and retries</source>
        <translation>Offline since %1; the kiosk keeps its catalog and retries</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="95"/>
        <source>HQ revoked this kiosk: enroll it again</source>
        <translation>HQ revoked this kiosk: enroll it again</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="96"/>
        <source>HQ needs a newer kiosk version</source>
        <translation>HQ needs a newer kiosk version</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="97"/>
        <source>Not enrolled with HQ</source>
        <translation>Not enrolled with HQ</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="101"/>
        <source>%1 download(s), %2 upload(s) pending</source>
        <translation>%1 download(s), %2 upload(s) pending</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="105"/>
        <source>HQ knows this kiosk as “%1”</source>
        <translation>HQ knows this kiosk as “%1”</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="111"/>
        <source>%1 (bundled with the kiosk)</source>
        <translation>%1 (bundled with the kiosk)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="113"/>
        <source>%1 (HQ release %2, its first customers are being watched)</source>
        <translation>%1 (HQ release %2, its first customers are being watched)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="115"/>
        <source>%1 (HQ release %2)</source>
        <translation>%1 (HQ release %2)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="119"/>
        <source>None</source>
        <translation>None</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="122"/>
        <source>Release %1 (%2) went back at %3: %4</source>
        <translation>Release %1 (%2) went back at %3: %4</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="131"/>
        <source>it did not load (%1)</source>
        <translation>it did not load (%1)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="136"/>
        <source>painted nails per frame</source>
        <translation>painted nails per frame</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="137"/>
        <source>nails blinking off</source>
        <translation>nails blinking off</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="138"/>
        <source>nail model time per hand (ms)</source>
        <translation>nail model time per hand (ms)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="139"/>
        <source>%1 was %2 against %3, the previous model&apos;s median over its last %4 customers</source>
        <translation>%1 was %2 against %3, the previous model&apos;s median over its last %4 customers</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="141"/>
        <source> (few customers to compare with)</source>
        <translation> (few customers to compare with)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="150"/>
        <source>Frames per second</source>
        <translation>Frames per second</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="150"/>
        <source>Frame source</source>
        <translation>Frame source</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="151"/>
        <source>Latency per stage</source>
        <translation>Latency per stage</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="151"/>
        <source>Frames waiting (mirror)</source>
        <translation>Frames waiting (mirror)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="152"/>
        <source>Task queue</source>
        <translation>Task queue</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="152"/>
        <source>Free disk space</source>
        <translation>Free disk space</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="153"/>
        <source>Saving results</source>
        <translation>Saving results</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="153"/>
        <source>Catalog sync (HQ)</source>
        <translation>Catalog sync (HQ)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="154"/>
        <source>Nail model</source>
        <translation>Nail model</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="154"/>
        <source>Last model rollback</source>
        <translation>Last model rollback</translation>
    </message>
</context>
<context>
    <name>FolderChooser</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="178"/>
        <source>not a style folder the kiosk can read</source>
        <translation>not a style folder the kiosk can read</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="179"/>
        <source>the style catalog is not open</source>
        <translation>the style catalog is not open</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="313"/>
        <source>Open a folder, then import it.</source>
        <translation>Open a folder, then import it.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="315"/>
        <source>No style here: a style folder holds nail.png (and style.json).</source>
        <translation>No style here: a style folder holds nail.png (and style.json).</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="317"/>
        <source>This is a style folder.</source>
        <translation>This is a style folder.</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="319"/>
        <source>%n style folder(s) here.</source>
        <translation>
            <numerusform>%n style folder here.</numerusform>
            <numerusform>%n style folders here.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="320"/>
        <source>Import %n style(s)</source>
        <translation>
            <numerusform>Import %n style</numerusform>
            <numerusform>Import %n styles</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="320"/>
        <source>Import</source>
        <translation>Import</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="323"/>
        <source>USB drives and folders</source>
        <translation>USB drives and folders</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="324"/>
        <source>Styles found on USB drives</source>
        <translation>Styles found on USB drives</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="326"/>
        <source>Looking at the drives…</source>
        <translation>Looking at the drives…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="328"/>
        <source>No style folders found on a USB drive.</source>
        <translation>No style folders found on a USB drive.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="329"/>
        <source>No USB drive found. Insert one, then tap USB drives.</source>
        <translation>No USB drive found. Insert one, then tap USB drives.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="332"/>
        <source>a style</source>
        <translation>a style</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="332"/>
        <source>%n style(s)</source>
        <translation>
            <numerusform>%n style</numerusform>
            <numerusform>%n styles</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="334"/>
        <source>Drives and folders</source>
        <translation>Drives and folders</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="336"/>
        <source>USB drive: %1</source>
        <translation>USB drive: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="337"/>
        <source>This kiosk&apos;s home folder</source>
        <translation>This kiosk&apos;s home folder</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="343"/>
        <source>Files: %1</source>
        <translation>Files: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="346"/>
        <source>  ·  a style</source>
        <translation>  ·  a style</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="349"/>
        <source>This folder has no folders in it.</source>
        <translation>This folder has no folders in it.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="398"/>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="399"/>
        <source>Import styles</source>
        <translation>Import styles</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="400"/>
        <source>Back</source>
        <translation>Back</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="401"/>
        <source>Up one folder</source>
        <translation>Up one folder</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="402"/>
        <source>USB drives</source>
        <translation>USB drives</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="403"/>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>GeneratePanel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="224"/>
        <source>Your design is ready and on your nails now.</source>
        <translation>Your design is ready and on your nails now.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="253"/>
        <source>Tap a version to try it on.</source>
        <translation>Tap a version to try it on.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="254"/>
        <source>No more versions could be made this time.</source>
        <translation>No more versions could be made this time.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="371"/>
        <source>Describe your dream nails</source>
        <translation>Describe your dream nails</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="372"/>
        <source>e.g. milky white, shell flakes, ring finger accent</source>
        <translation>e.g. milky white, shell flakes, ring finger accent</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="373"/>
        <source>Create my design</source>
        <translation>Create my design</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="374"/>
        <source>Try it on again</source>
        <translation>Try it on again</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="375"/>
        <source>Show me 2 more versions</source>
        <translation>Show me 2 more versions</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="376"/>
        <source>✦ Designed by you</source>
        <translation>✦ Designed by you</translation>
    </message>
</context>
<context>
    <name>GenerationController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="82"/>
        <source>Still designing your nails: one design at a time. It will be ready soon.</source>
        <translation>Still designing your nails: one design at a time. It will be ready soon.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="107"/>
        <source>Sent! Designing your nails…</source>
        <translation>Sent! Designing your nails…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="130"/>
        <source>Making %1 more versions to pick from…</source>
        <translation>Making %1 more versions to pick from…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="152"/>
        <source>We could not find a colour, finish or pattern in “%1”. Try words like: %2</source>
        <translation>We could not find a colour, finish or pattern in “%1”. Try words like: %2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="159"/>
        <source>We did not understand “%1”, so it is not in this design. Words we know: %2</source>
        <translation>We did not understand “%1”, so it is not in this design. Words we know: %2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="191"/>
        <source>Trying again…</source>
        <translation>Trying again…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="193"/>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="231"/>
        <source>Designing your nails…</source>
        <translation>Designing your nails…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="213"/>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="214"/>
        <source>NailMirror</source>
        <translation>NailMirror</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="215"/>
        <source>Demo</source>
        <translation>Demo</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="217"/>
        <source>Snapshot · before/after</source>
        <translation>Snapshot · before/after</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="217"/>
        <source>Cancel the photo</source>
        <translation>Cancel the photo</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="221"/>
        <source>Styles</source>
        <translation>Styles</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="222"/>
        <source>AI design</source>
        <translation>AI design</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="89"/>
        <source>AI design is not available right now. Try a quick-pick style, or ask our staff.</source>
        <translation>AI design is not available right now. Try a quick-pick style, or ask our staff.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="92"/>
        <source>We have made all the AI designs we can today. Try a quick-pick style, or come back tomorrow.</source>
        <translation>We have made all the AI designs we can today. Try a quick-pick style, or come back tomorrow.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="95"/>
        <source>You have made the most AI designs for one visit. Try on the ones you made, or pick a style.</source>
        <translation>You have made the most AI designs for one visit. Try on the ones you made, or pick a style.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="21"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="33"/>
        <source>We can&apos;t make that design. Please describe it differently.</source>
        <translation>We can&apos;t make that design. Please describe it differently.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="23"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="35"/>
        <source>The design service can&apos;t be reached right now. Try a quick-pick style, or ask our staff.</source>
        <translation>The design service can&apos;t be reached right now. Try a quick-pick style, or ask our staff.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="26"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="38"/>
        <source>The design service is paused. Please ask our staff.</source>
        <translation>The design service is paused. Please ask our staff.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="28"/>
        <source>Lots of designs are being made right now. Please try again in a minute.</source>
        <translation>Lots of designs are being made right now. Please try again in a minute.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="40"/>
        <source>Tell us a colour or a pattern first.</source>
        <translation>Tell us a colour or a pattern first.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="41"/>
        <source>Something went wrong making this design. Please try again.</source>
        <translation>Something went wrong making this design. Please try again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="48"/>
        <source>The kiosk&apos;s storage is full, so no new design can be saved. Please ask our staff.</source>
        <translation>The kiosk&apos;s storage is full, so no new design can be saved. Please ask our staff.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="51"/>
        <source>The design service sent back something we could not use. Please try again.</source>
        <translation>The design service sent back something we could not use. Please try again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="54"/>
        <source>We lost contact while your design was being made. So you are not charged twice, we did not ask again: please ask our staff before trying again.</source>
        <translation>We lost contact while your design was being made. So you are not charged twice, we did not ask again: please ask our staff before trying again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="58"/>
        <source>Your design took too long and was stopped. Please try again, or try a quick pick.</source>
        <translation>Your design took too long and was stopped. Please try again, or try a quick pick.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="65"/>
        <source>Waiting</source>
        <translation>Waiting</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="66"/>
        <source>Working</source>
        <translation>Working</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="67"/>
        <source>Done</source>
        <translation>Done</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="68"/>
        <source>Failed, will retry</source>
        <translation>Failed, will retry</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="69"/>
        <source>Canceled</source>
        <translation>Canceled</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="70"/>
        <source>Dead letter</source>
        <translation>Dead letter</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="77"/>
        <source>Draft</source>
        <translation>Draft</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="78"/>
        <source>Pending review</source>
        <translation>Pending review</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="79"/>
        <source>Published</source>
        <translation>Published</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="80"/>
        <source>Rejected</source>
        <translation>Rejected</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="81"/>
        <source>Off shelf</source>
        <translation>Off shelf</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="103"/>
        <source>Offline designer (on this kiosk, free)</source>
        <translation>Offline designer (on this kiosk, free)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="104"/>
        <source>OpenAI image generation (online, paid)</source>
        <translation>OpenAI image generation (online, paid)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="105"/>
        <source>Alibaba Cloud Tongyi Wanxiang (online, paid)</source>
        <translation>Alibaba Cloud Tongyi Wanxiang (online, paid)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="113"/>
        <source>OpenAI</source>
        <translation>OpenAI</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="114"/>
        <source>Tongyi Wanxiang</source>
        <translation>Tongyi Wanxiang</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="115"/>
        <source>Offline designer</source>
        <translation>Offline designer</translation>
    </message>
</context>
<context>
    <name>MirrorLoop</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_loop.py" line="233"/>
        <source>The camera is not responding. Reconnecting…</source>
        <translation>The camera is not responding. Reconnecting…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_loop.py" line="235"/>
        <source>Looking for a camera…</source>
        <translation>Looking for a camera…</translation>
    </message>
</context>
<context>
    <name>MirrorView</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="100"/>
        <source>Show this to our staff: %1</source>
        <translation>Show this to our staff: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="272"/>
        <source>Place both hands flat inside the outlines</source>
        <translation>Place both hands flat inside the outlines</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="273"/>
        <source>Place your hand flat inside the outline</source>
        <translation>Place your hand flat inside the outline</translation>
    </message>
</context>
<context>
    <name>NailForm</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="29"/>
        <source>Round</source>
        <translation>Round</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="30"/>
        <source>Square</source>
        <translation>Square</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="31"/>
        <source>Squoval</source>
        <translation>Squoval</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="32"/>
        <source>Almond</source>
        <translation>Almond</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="33"/>
        <source>Coffin</source>
        <translation>Coffin</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="34"/>
        <source>Stiletto</source>
        <translation>Stiletto</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="41"/>
        <source>Natural</source>
        <translation>Natural</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="42"/>
        <source>Short</source>
        <translation>Short</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="43"/>
        <source>Medium</source>
        <translation>Medium</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="44"/>
        <source>Long</source>
        <translation>Long</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="45"/>
        <source>Extra long</source>
        <translation>Extra long</translation>
    </message>
</context>
<context>
    <name>NailFormPicker</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="237"/>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="248"/>
        <source>Nail shape and length</source>
        <translation>Nail shape and length</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="255"/>
        <source>Designer&apos;s choice: %1</source>
        <translation>Designer&apos;s choice: %1</translation>
    </message>
</context>
<context>
    <name>NoPinPanel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="91"/>
        <source>The staff pages are closed</source>
        <translation>The staff pages are closed</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="92"/>
        <source>No staff PIN is set on this kiosk yet, and it cannot be set from this screen.</source>
        <translation>No staff PIN is set on this kiosk yet, and it cannot be set from this screen.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="93"/>
        <source>Staff: set one on this kiosk PC with the command above, run as the account the kiosk runs under. Then tap ⋯ again.</source>
        <translation>Staff: set one on this kiosk PC with the command above, run as the account the kiosk runs under. Then tap ⋯ again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="95"/>
        <source>Got it</source>
        <translation>Got it</translation>
    </message>
</context>
<context>
    <name>PinDialog</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="17"/>
        <source>Too many wrong PINs. Try again in {0} s.</source>
        <translation>Too many wrong PINs. Try again in {0} s.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="19"/>
        <source>Too many wrong PINs. Try again in {0} min.</source>
        <translation>Too many wrong PINs. Try again in {0} min.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="81"/>
        <source>No staff PIN is set on this kiosk.</source>
        <translation>No staff PIN is set on this kiosk.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="84"/>
        <source>Wrong PIN.</source>
        <translation>Wrong PIN.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="92"/>
        <source>Staff</source>
        <translation>Staff</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="93"/>
        <source>Staff PIN</source>
        <translation>Staff PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="94"/>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>RequestRow</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="156"/>
        <source>Asked at %1</source>
        <translation>Asked at %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="158"/>
        <source>Done</source>
        <translation>Done</translation>
    </message>
</context>
<context>
    <name>RequestsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="76"/>
        <source>The requests could not be read.</source>
        <translation>The requests could not be read.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="98"/>
        <source>%1 could not be marked done.</source>
        <translation>%1 could not be marked done.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="100"/>
        <source>%1 done.</source>
        <translation>%1 done.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="128"/>
        <source>What customers chose today with &quot;I want this one&quot;, oldest first. The number is the one on the customer&apos;s screen. Mark a request done when you have taken it.</source>
        <translation>What customers chose today with &quot;I want this one&quot;, oldest first. The number is the one on the customer&apos;s screen. Mark a request done when you have taken it.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="130"/>
        <source>No requests right now.</source>
        <translation>No requests right now.</translation>
    </message>
</context>
<context>
    <name>ReviewPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="284"/>
        <source>Write the reason for rejecting first.</source>
        <translation>Write the reason for rejecting first.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="268"/>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="292"/>
        <source>Not done: %1</source>
        <translation>Not done: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="241"/>
        <source>no price</source>
        <translation>no price</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="250"/>
        <source>Type a price first, or clear it.</source>
        <translation>Type a price first, or clear it.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="255"/>
        <source>Write the price as digits, such as 128 or 128.50.</source>
        <translation>Write the price as digits, such as 128 or 128.50.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="271"/>
        <source>Price of %1: %2</source>
        <translation>Price of %1: %2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="295"/>
        <source>Done: %1 is now %2</source>
        <translation>Done: %1 is now %2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="321"/>
        <source>Importing %1 of %2: %3…</source>
        <translation>Importing %1 of %2: %3…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="329"/>
        <source>Imported %1 of %2 as drafts.</source>
        <translation>Imported %1 of %2 as drafts.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="331"/>
        <source>Not imported: %1</source>
        <translation>Not imported: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="341"/>
        <source>Imported as %1 (draft).</source>
        <translation>Imported as %1 (draft).</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="345"/>
        <source>Import failed: %1</source>
        <translation>Import failed: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="361"/>
        <source>Submit</source>
        <translation>Submit</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="361"/>
        <source>Approve</source>
        <translation>Approve</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="361"/>
        <source>Reject</source>
        <translation>Reject</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="362"/>
        <source>Publish</source>
        <translation>Publish</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="362"/>
        <source>Off shelf</source>
        <translation>Off shelf</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="362"/>
        <source>Back to draft</source>
        <translation>Back to draft</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="365"/>
        <source>Reason (required to reject)</source>
        <translation>Reason (required to reject)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="366"/>
        <source>Price (%1)</source>
        <translation>Price (%1)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="369"/>
        <source>e.g. 128 or 128.50</source>
        <translation>e.g. 128 or 128.50</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="370"/>
        <source>e.g. 1280</source>
        <translation>e.g. 1280</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="371"/>
        <source>Set price</source>
        <translation>Set price</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="372"/>
        <source>Clear price</source>
        <translation>Clear price</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="375"/>
        <source>Import a style folder…</source>
        <translation>Import a style folder…</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="307"/>
        <source>No key needed</source>
        <translation>No key needed</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="310"/>
        <source>No key set</source>
        <translation>No key set</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="334"/>
        <source>Saved. Restart the kiosk to use the new camera, picture or sharing settings.</source>
        <translation>Saved. Restart the kiosk to use the new camera, picture or sharing settings.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="335"/>
        <source>Saved.</source>
        <translation>Saved.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="356"/>
        <source>The PIN must be 4 to 8 digits.</source>
        <translation>The PIN must be 4 to 8 digits.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="355"/>
        <source>That PIN was the published default: choose another.</source>
        <translation>That PIN was the published default: choose another.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="248"/>
        <source>This camera is not connected.</source>
        <translation>This camera is not connected.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="250"/>
        <source>Starting the camera…</source>
        <translation>Starting the camera…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="266"/>
        <source>This camera does not open: it may be unplugged or in use by another program.</source>
        <translation>This camera does not open: it may be unplugged or in use by another program.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="285"/>
        <source>No camera is connected. The mirror plays the demo video until one is plugged in.</source>
        <translation>No camera is connected. The mirror plays the demo video until one is plugged in.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="290"/>
        <source>Automatic: the first camera found</source>
        <translation>Automatic: the first camera found</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="292"/>
        <source>Camera %1</source>
        <translation>Camera %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="293"/>
        <source>%1 (not connected)</source>
        <translation>%1 (not connected)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="294"/>
        <source>No camera found.</source>
        <translation>No camera found.</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="295"/>
        <source>%n camera(s) found.</source>
        <translation>
            <numerusform>%n camera found.</numerusform>
            <numerusform>%n cameras found.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="296"/>
        <source>Camera preview</source>
        <translation>Camera preview</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="297"/>
        <source>Look for cameras again</source>
        <translation>Look for cameras again</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="337"/>
        <source>Prices already set keep their numbers: check them on the review page.</source>
        <translation>Prices already set keep their numbers: check them on the review page.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="362"/>
        <source>To change the PIN, type the current PIN first.</source>
        <translation>To change the PIN, type the current PIN first.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="384"/>
        <source>Camera</source>
        <translation>Camera</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="384"/>
        <source>Resolution</source>
        <translation>Resolution</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="384"/>
        <source>Mirror the picture</source>
        <translation>Mirror the picture</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="385"/>
        <source>Idle reset after</source>
        <translation>Idle reset after</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="385"/>
        <source>Hands tracked</source>
        <translation>Hands tracked</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="385"/>
        <source>Delete snapshots after</source>
        <translation>Delete snapshots after</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="386"/>
        <source>Language</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="386"/>
        <source>Price currency</source>
        <translation>Price currency</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="387"/>
        <source>Store name</source>
        <translation>Store name</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="388"/>
        <source>Design provider</source>
        <translation>Design provider</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="386"/>
        <source>Send photos to phones</source>
        <translation>Send photos to phones</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="388"/>
        <source>New API key</source>
        <translation>New API key</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="388"/>
        <source>Current key</source>
        <translation>Current key</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="389"/>
        <source>New staff PIN</source>
        <translation>New staff PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="389"/>
        <source>Current staff PIN</source>
        <translation>Current staff PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="392"/>
        <source>Leave empty to keep the current key</source>
        <translation>Leave empty to keep the current key</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="393"/>
        <source>Needed only to change the PIN</source>
        <translation>Needed only to change the PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="394"/>
        <source>Leave empty to keep the current PIN</source>
        <translation>Leave empty to keep the current PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="397"/>
        <source>Save settings</source>
        <translation>Save settings</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="398"/>
        <source>Restart the kiosk now</source>
        <translation>Restart the kiosk now</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="399"/>
        <source>Off keeps every photo on this kiosk</source>
        <translation>Off keeps every photo on this kiosk</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="400"/>
        <source>On the take-home card and the phone&apos;s picture</source>
        <translation>On the take-home card and the phone&apos;s picture</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="401"/>
        <source> days</source>
        <translation> days</translation>
    </message>
</context>
<context>
    <name>ShareController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="132"/>
        <source>Style code %1</source>
        <translation>Style code %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="133"/>
        <source>Before</source>
        <translation>Before</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="133"/>
        <source>After</source>
        <translation>After</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="134"/>
        <source>Show this picture to your nail artist</source>
        <translation>Show this picture to your nail artist</translation>
    </message>
</context>
<context>
    <name>SharePage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="118"/>
        <source>Take it home</source>
        <translation>Take it home</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="119"/>
        <source>Back to my photo</source>
        <translation>Back to my photo</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="121"/>
        <source>Or photograph the style card: our staff find this style again from its code.</source>
        <translation>Or photograph the style card: our staff find this style again from its code.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="123"/>
        <source>Scan the code with your phone&apos;s camera to save the photo. The link works on this store&apos;s Wi-Fi for %1 minutes, and ends when you leave the kiosk.</source>
        <translation>Scan the code with your phone&apos;s camera to save the photo. The link works on this store&apos;s Wi-Fi for %1 minutes, and ends when you leave the kiosk.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="126"/>
        <source>Sent to your phone. The link ends when you leave the kiosk.</source>
        <translation>Sent to your phone. The link ends when you leave the kiosk.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="127"/>
        <source>This kiosk is not on a network your phone can reach right now.</source>
        <translation>This kiosk is not on a network your phone can reach right now.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="128"/>
        <source>Sending to a phone does not work on this kiosk right now.</source>
        <translation>Sending to a phone does not work on this kiosk right now.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="129"/>
        <source>This kiosk keeps photos to itself.</source>
        <translation>This kiosk keeps photos to itself.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="130"/>
        <source>The photo is still being saved: try again in a moment.</source>
        <translation>The photo is still being saved: try again in a moment.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="134"/>
        <source>Not opening? A guest Wi-Fi may keep your phone away from this kiosk: photograph the style card instead.</source>
        <translation>Not opening? A guest Wi-Fi may keep your phone away from this kiosk: photograph the style card instead.</translation>
    </message>
</context>
<context>
    <name>SnapshotGallery</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="274"/>
        <source>This photo cannot be shown.</source>
        <translation>This photo cannot be shown.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="321"/>
        <source>Some photos could not be deleted; try again.</source>
        <translation>Some photos could not be deleted; try again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="335"/>
        <source>no style</source>
        <translation>no style</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="348"/>
        <source>%n photo(s) kept on this kiosk</source>
        <translation>
            <numerusform>%n photo kept on this kiosk</numerusform>
            <numerusform>%n photos kept on this kiosk</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="364"/>
        <source>Delete all %n photo(s) for good? This cannot be undone.</source>
        <translation>
            <numerusform>Delete the %n photo for good? This cannot be undone.</numerusform>
            <numerusform>Delete all %n photos for good? This cannot be undone.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="366"/>
        <source>Yes, delete all</source>
        <translation>Yes, delete all</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="368"/>
        <source>Delete this photo for good? This cannot be undone.</source>
        <translation>Delete this photo for good? This cannot be undone.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="369"/>
        <source>Yes, delete it</source>
        <translation>Yes, delete it</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="372"/>
        <source>Show after</source>
        <translation>Show after</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="372"/>
        <source>Show before</source>
        <translation>Show before</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="375"/>
        <source>Delete all</source>
        <translation>Delete all</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="376"/>
        <source>No photos are kept on this kiosk.</source>
        <translation>No photos are kept on this kiosk.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="377"/>
        <source>Back to all photos</source>
        <translation>Back to all photos</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="378"/>
        <source>Delete</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="379"/>
        <source>Keep</source>
        <translation>Keep</translation>
    </message>
</context>
<context>
    <name>SnapshotPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="287"/>
        <source>Before / after · %1</source>
        <translation>Before / after · %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="287"/>
        <source>Before / after</source>
        <translation>Before / after</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="311"/>
        <source>Saved on this kiosk. Ask our staff for a copy.</source>
        <translation>Saved on this kiosk. Ask our staff for a copy.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="312"/>
        <source>The photo could not be saved.</source>
        <translation>The photo could not be saved.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="327"/>
        <source>Before</source>
        <translation>Before</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="327"/>
        <source>After</source>
        <translation>After</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="328"/>
        <source>Drag the line to compare</source>
        <translation>Drag the line to compare</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="329"/>
        <source>Back to the mirror</source>
        <translation>Back to the mirror</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="330"/>
        <source>Perfecting your photo…</source>
        <translation>Perfecting your photo…</translation>
    </message>
</context>
<context>
    <name>StaffPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="76"/>
        <source>Staff</source>
        <translation>Staff</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="77"/>
        <source>Back to the customer screen</source>
        <translation>Back to the customer screen</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="78"/>
        <source>Close the kiosk</source>
        <translation>Close the kiosk</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="79"/>
        <source>Close the kiosk? The counter shows nothing until it is started again.</source>
        <translation>Close the kiosk? The counter shows nothing until it is started again.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="80"/>
        <source>Yes, close it</source>
        <translation>Yes, close it</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="81"/>
        <source>Keep it running</source>
        <translation>Keep it running</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="82"/>
        <source>Review</source>
        <translation>Review</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="82"/>
        <source>Tasks</source>
        <translation>Tasks</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="82"/>
        <source>Requests</source>
        <translation>Requests</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="83"/>
        <source>Settings</source>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="83"/>
        <source>Credits</source>
        <translation>Credits</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="83"/>
        <source>Photos</source>
        <translation>Photos</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="84"/>
        <source>Diagnostics</source>
        <translation>Diagnostics</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="84"/>
        <source>Photo copies</source>
        <translation>Photo copies</translation>
    </message>
</context>
<context>
    <name>StyleBrowser</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="643"/>
        <source>Search by name or style code</source>
        <translation>Search by name or style code</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="668"/>
        <source>No styles match. Try another word or category.</source>
        <translation>No styles match. Try another word or category.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="645"/>
        <source>Accent nails (tap a finger)</source>
        <translation>Accent nails (tap a finger)</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="646"/>
        <source>Save to my favourites</source>
        <translation>Save to my favourites</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="648"/>
        <source>Thumb</source>
        <translation>Thumb</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="648"/>
        <source>Index</source>
        <translation>Index</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="648"/>
        <source>Middle</source>
        <translation>Middle</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="649"/>
        <source>Ring</source>
        <translation>Ring</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="649"/>
        <source>Pinky</source>
        <translation>Pinky</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="662"/>
        <source>Setting up the style catalog for the first time… one moment.</source>
        <translation>Setting up the style catalog for the first time… one moment.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="664"/>
        <source>The style catalog could not be loaded. Please ask our staff.</source>
        <translation>The style catalog could not be loaded. Please ask our staff.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="666"/>
        <source>No favourites yet: tap ♡ beside a style you like.</source>
        <translation>No favourites yet: tap ♡ beside a style you like.</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="672"/>
        <source>Tap a style…</source>
        <translation>Tap a style…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="673"/>
        <source>Compare</source>
        <translation>Compare</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="681"/>
        <source>All</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="683"/>
        <source>♥ Favourites (%1)</source>
        <translation>♥ Favourites (%1)</translation>
    </message>
</context>
<context>
    <name>StyleCard</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/style_card.py" line="107"/>
        <source>Show this card to your nail artist</source>
        <translation>Show this card to your nail artist</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/style_card.py" line="108"/>
        <source>Style code %1</source>
        <translation>Style code %1</translation>
    </message>
</context>
<context>
    <name>TaskMonitor</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="52"/>
        <source>AI design</source>
        <translation>AI design</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="53"/>
        <source>Photo render</source>
        <translation>Photo render</translation>
    </message>
</context>
<context>
    <name>TaskMonitorPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="189"/>
        <source>open dead letters %1</source>
        <translation>open dead letters %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="219"/>
        <source>Not done: %1</source>
        <translation>Not done: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="221"/>
        <source>Done: %1</source>
        <translation>Done: %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="239"/>
        <source>All states</source>
        <translation>All states</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="242"/>
        <source>All types</source>
        <translation>All types</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="245"/>
        <source>Replay dead letter</source>
        <translation>Replay dead letter</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="246"/>
        <source>Ignore dead letter</source>
        <translation>Ignore dead letter</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="247"/>
        <source>Cancel task</source>
        <translation>Cancel task</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>Task</source>
        <translation>Task</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>Type</source>
        <translation>Type</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="249"/>
        <source>Attempts</source>
        <translation>Attempts</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="249"/>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="249"/>
        <source>Created</source>
        <translation>Created</translation>
    </message>
</context>
<context>
    <name>TryOnController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/tryon_controller.py" line="240"/>
        <source>This style can&apos;t be tried on right now.</source>
        <translation>This style can&apos;t be tried on right now.</translation>
    </message>
</context>
<context>
    <name>_TakeHomeButton</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="217"/>
        <source>Send to my phone</source>
        <translation>Send to my phone</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="217"/>
        <source>Style card</source>
        <translation>Style card</translation>
    </message>
</context>
<context>
    <name>_TicketLabel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="195"/>
        <source>Show this to our staff: %1</source>
        <translation>Show this to our staff: %1</translation>
    </message>
</context>
<context>
    <name>_WantButton</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="168"/>
        <source>Sending to our staff…</source>
        <translation>Sending to our staff…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="169"/>
        <source>Not sent. Tap to try again</source>
        <translation>Not sent. Tap to try again</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="170"/>
        <source>I want this one</source>
        <translation>I want this one</translation>
    </message>
</context>
</TS>
