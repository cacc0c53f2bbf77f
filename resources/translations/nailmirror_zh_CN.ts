<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AuditText</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="39"/>
        <source>Staff on the kiosk PC (%1)</source>
        <translation>店员在终端电脑上（%1）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="41"/>
        <source>HQ reviewer %1</source>
        <translation>总部审核员 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="41"/>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="43"/>
        <source>HQ</source>
        <translation>总部</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="42"/>
        <source>Staff</source>
        <translation>店员</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="42"/>
        <source>Staff on the kiosk PC</source>
        <translation>店员在终端电脑上</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="43"/>
        <source>The starter catalog</source>
        <translation>初始款式库</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="44"/>
        <source>AI design</source>
        <translation>AI 设计</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="68"/>
        <source>%1 cleared the price of %2 (was %3).</source>
        <translation>%1清除了 %2 的价格（原为 %3）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="70"/>
        <source>%1 set the price of %2 to %3 (it had none).</source>
        <translation>%1将 %2 的价格设为 %3（原来没有价格）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="71"/>
        <source>%1 set the price of %2 to %3 (was %4).</source>
        <translation>%1将 %2 的价格设为 %3（原为 %4）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="73"/>
        <source>%1 hid %2 in this store.</source>
        <translation>%1在本店隐藏了 %2。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="74"/>
        <source>%1 showed %2 in this store again.</source>
        <translation>%1在本店重新显示了 %2。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="76"/>
        <source>%1 sent %2 to HQ for review.</source>
        <translation>%1将 %2 提交总部审核。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="78"/>
        <source>%1 added %2 as a draft.</source>
        <translation>%1新建了 %2（草稿）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="79"/>
        <source>%1 sent %2 for review.</source>
        <translation>%1将 %2 提交审核。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="80"/>
        <source>%1 approved %2: it is on the shelf.</source>
        <translation>%1审核通过了 %2，已上架。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="81"/>
        <source>%1 rejected %2.</source>
        <translation>%1驳回了 %2。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="82"/>
        <source>%1 put %2 back on the shelf.</source>
        <translation>%1将 %2 重新上架。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="83"/>
        <source>%1 took %2 off the shelf.</source>
        <translation>%1将 %2 下架。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="84"/>
        <source>%1 sent %2 back to draft.</source>
        <translation>%1将 %2 退回草稿。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="85"/>
        <source>%1 replaced the pictures of %2; it is a draft again.</source>
        <translation>%1更换了 %2 的图片，已退回草稿。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="86"/>
        <source>%1 replaced the pictures of %2.</source>
        <translation>%1更换了 %2 的图片。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="87"/>
        <source>%1 removed %2.</source>
        <translation>%1删除了 %2。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="88"/>
        <source>%1 updated %2 (now: %3).</source>
        <translation>%1更新了 %2（现为：%3）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="89"/>
        <source>%1 updated %2.</source>
        <translation>%1更新了 %2。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="91"/>
        <source>%1: %2 %3.</source>
        <translation>%1：%2 %3。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/audit_text.py" line="99"/>
        <source>%1 Reason: “%2”</source>
        <translation>%1 原因：“%2”</translation>
    </message>
</context>
<context>
    <name>CaptureCodeLabel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="190"/>
        <source>Thank you. Your photo code: %1 (give it to our staff to delete the copy)</source>
        <translation>谢谢！您的照片代码：%1（凭此代码可请店员删除副本）</translation>
    </message>
</context>
<context>
    <name>CapturesPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="93"/>
        <source>That is not a photo code (8 letters and digits, like K7QH-3MPX)</source>
        <translation>这不是照片代码（8 位字母和数字，例如 K7QH-3MPX）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="94"/>
        <source>Not withdrawn: %1</source>
        <translation>未能撤回：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="99"/>
        <source>Photo %1 withdrawn and deleted from this kiosk; HQ deletes it at the next sync.</source>
        <translation>照片 %1 已撤回并已从本机删除；总部将在下次同步时删除。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="100"/>
        <source>Photo %1 withdrawn; HQ and every kiosk delete it at the next sync.</source>
        <translation>照片 %1 已撤回；总部和各台魔镜将在下次同步时删除。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="116"/>
        <source>Take a snapshot of your hands on the mirror first.</source>
        <translation>请先在魔镜上为您的双手拍一张照片。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="120"/>
        <source>Keeping a copy…</source>
        <translation>正在保存副本…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="126"/>
        <source>Nothing kept: no hands found in the last snapshot.</source>
        <translation>未保存：上一张照片中没有找到手。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="128"/>
        <source>Nothing kept.</source>
        <translation>未保存。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="130"/>
        <source>Kept as %1; it goes to HQ with the next sync.</source>
        <translation>已保存为 %1，将在下次同步时发送到总部。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="146"/>
        <source>Withdraw a customer&apos;s photo</source>
        <translation>撤回顾客的照片</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="147"/>
        <source>Her photo code, e.g. K7QH-3MPX</source>
        <translation>顾客的照片代码，例如 K7QH-3MPX</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="148"/>
        <source>Withdraw</source>
        <translation>撤回</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="149"/>
        <source>Your own hands</source>
        <translation>您自己的双手</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="152"/>
        <source>You consented on %1 to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping improve our nail model.</source>
        <translation>您已于 %1 同意保存自己双手的照片副本（仅裁剪双手、面部模糊、最长保存 180 天），用于改进美甲模型。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="154"/>
        <source>Consent once to copies of your own hands (cropped, faces blurred, kept up to 180 days) helping improve our nail model; a code withdraws any of them.</source>
        <translation>只需同意一次：保存您自己双手的照片副本（仅裁剪双手、面部模糊、最长保存 180 天）用于改进美甲模型；凭代码可随时撤回任意一张。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="156"/>
        <source>I consent</source>
        <translation>我同意</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/captures_page.py" line="157"/>
        <source>Capture my hands from the last snapshot</source>
        <translation>用上一张照片保存我的双手</translation>
    </message>
</context>
<context>
    <name>ComparePage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/compare_page.py" line="106"/>
        <source>Compare two styles</source>
        <translation>对比两款</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/compare_page.py" line="107"/>
        <source>Back to the mirror</source>
        <translation>返回魔镜</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/compare_page.py" line="110"/>
        <source>Try this one</source>
        <translation>试戴这款</translation>
    </message>
</context>
<context>
    <name>ConsentButton</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="142"/>
        <source>Keeping a copy…</source>
        <translation>正在保存副本…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="143"/>
        <source>Not kept. Tap to try again</source>
        <translation>未保存，点击重试</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="144"/>
        <source>No hands found in this photo: nothing kept</source>
        <translation>照片中没有找到手，未保存</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="145"/>
        <source>Help us improve the mirror</source>
        <translation>帮助我们改进魔镜</translation>
    </message>
</context>
<context>
    <name>ConsentSentence</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/capture_consent.py" line="164"/>
        <source>If you tap, we keep a copy of this photo cropped to your hands (faces blurred) for up to 180 days to improve our nail model; give the code we show you to any of our staff to have it deleted.</source>
        <translation>点击即表示同意：我们将保存这张照片中您双手部分的副本（面部会被模糊），最长 180 天，用于改进美甲模型；把我们显示的代码交给任一店员即可删除。</translation>
    </message>
</context>
<context>
    <name>CreditSettingsBox</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="187"/>
        <source>Asia</source>
        <translation>亚洲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="187"/>
        <source>Europe</source>
        <translation>欧洲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="187"/>
        <source>Americas</source>
        <translation>美洲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="188"/>
        <source>Africa</source>
        <translation>非洲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="188"/>
        <source>Australia</source>
        <translation>澳大利亚</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="188"/>
        <source>Pacific</source>
        <translation>太平洋</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="189"/>
        <source>Indian Ocean</source>
        <translation>印度洋</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="189"/>
        <source>Atlantic</source>
        <translation>大西洋</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="190"/>
        <source>Antarctica</source>
        <translation>南极洲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="190"/>
        <source>Arctic</source>
        <translation>北极</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="190"/>
        <source>Other (UTC)</source>
        <translation>其他（UTC）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="196"/>
        <source>Store time zone (the daily cap&apos;s day)</source>
        <translation>门店时区（每日上限按此日计）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="197"/>
        <source>This computer&apos;s zone</source>
        <translation>使用本机时区</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="198"/>
        <source>Set by HQ for this store: ask HQ to change it.</source>
        <translation>由总部为本店设定：如需更改，请联系总部。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="200"/>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="202"/>
        <source>Credits per image: %1</source>
        <translation>每张图片积分：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credit_settings.py" line="203"/>
        <source>Free (rendered on this kiosk)</source>
        <translation>免费（在本终端生成）</translation>
    </message>
</context>
<context>
    <name>CreditsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="98"/>
        <source>No credits granted yet: generations are not limited by a balance</source>
        <translation>尚未发放积分：生成不受余额限制</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="102"/>
        <source>%1 credit(s) spent, %2 paid generation(s) of %3</source>
        <translation>已消耗 %1 积分，付费生成 %2 次（上限 %3）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="106"/>
        <source>%1 per customer session</source>
        <translation>每位顾客每次体验 %1 次</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="109"/>
        <source>Credits are running low: %1 left (alert below %2). Ask HQ for a grant.</source>
        <translation>积分即将用完：剩余 %1（低于 %2 时提醒）。请联系总部发放积分。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="147"/>
        <source>no cap</source>
        <translation>不限</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="166"/>
        <source>Balance</source>
        <translation>余额</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="166"/>
        <source>Held for running generations</source>
        <translation>生成中预扣</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="167"/>
        <source>Today</source>
        <translation>今日</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="167"/>
        <source>Limit</source>
        <translation>限制</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="170"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="171"/>
        <source>Save limits</source>
        <translation>保存限制</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="172"/>
        <source>Paid generations per day (0: no cap)</source>
        <translation>每日付费生成次数（0：不限）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="173"/>
        <source>Per customer session (0: no cap)</source>
        <translation>每位顾客每次体验（0：不限）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="174"/>
        <source>Alert when the balance is below</source>
        <translation>余额低于此值时提醒</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="176"/>
        <source>Credits</source>
        <translation>积分</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="177"/>
        <source>Paid</source>
        <translation>实扣</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="177"/>
        <source>Task or grant</source>
        <translation>任务或发放</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/credits_page.py" line="177"/>
        <source>Note</source>
        <translation>备注</translation>
    </message>
</context>
<context>
    <name>DiagnosticsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="83"/>
        <source>DISK FULL: %1 task result(s) wait to be saved. Free some space; they are saved then.</source>
        <translation>磁盘已满：%1 个任务结果等待保存。请清理磁盘空间，腾出空间后会自动保存。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="87"/>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="93"/>
        <source>OK, last synced %1</source>
        <translation>正常，上次同步 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="94"/>
        <source>Offline since %1; the kiosk keeps its catalog and retries</source>
        <translation>自 %1 起离线；本终端保留现有款式并会自动重试</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="95"/>
        <source>HQ revoked this kiosk: enroll it again</source>
        <translation>总部已吊销本终端的授权：请重新注册</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="96"/>
        <source>HQ needs a newer kiosk version</source>
        <translation>总部要求更新本终端的软件版本</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="97"/>
        <source>Not enrolled with HQ</source>
        <translation>未在总部注册</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="101"/>
        <source>%1 download(s), %2 upload(s) pending</source>
        <translation>待下载 %1 个，待上传 %2 个</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="105"/>
        <source>HQ knows this kiosk as “%1”</source>
        <translation>总部称本终端为“%1”</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="111"/>
        <source>%1 (bundled with the kiosk)</source>
        <translation>%1（终端自带）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="113"/>
        <source>%1 (HQ release %2, its first customers are being watched)</source>
        <translation>%1（总部发布 %2，正在观察最初几位顾客的效果）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="115"/>
        <source>%1 (HQ release %2)</source>
        <translation>%1（总部发布 %2）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="119"/>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="122"/>
        <source>Release %1 (%2) went back at %3: %4</source>
        <translation>发布 %1（%2）已于 %3 自动回退：%4</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="131"/>
        <source>it did not load (%1)</source>
        <translation>无法加载（%1）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="136"/>
        <source>painted nails per frame</source>
        <translation>每帧上色指甲数</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="137"/>
        <source>nails blinking off</source>
        <translation>指甲闪烁率</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="138"/>
        <source>nail model time per hand (ms)</source>
        <translation>指甲模型每只手耗时（毫秒）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="139"/>
        <source>%1 was %2 against %3, the previous model&apos;s median over its last %4 customers</source>
        <translation>%1为 %2，上一模型最近 %4 位顾客的中位数为 %3</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="141"/>
        <source> (few customers to compare with)</source>
        <translation>（可比较的顾客较少）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="150"/>
        <source>Frames per second</source>
        <translation>帧率（FPS）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="150"/>
        <source>Frame source</source>
        <translation>画面来源</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="151"/>
        <source>Latency per stage</source>
        <translation>各阶段耗时</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="151"/>
        <source>Frames waiting (mirror)</source>
        <translation>待处理帧（魔镜）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="152"/>
        <source>Task queue</source>
        <translation>任务队列</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="152"/>
        <source>Free disk space</source>
        <translation>可用磁盘空间</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="153"/>
        <source>Saving results</source>
        <translation>结果保存</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="153"/>
        <source>Catalog sync (HQ)</source>
        <translation>款式同步（总部）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="154"/>
        <source>Nail model</source>
        <translation>指甲模型</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="154"/>
        <source>Last model rollback</source>
        <translation>最近一次模型回退</translation>
    </message>
</context>
<context>
    <name>FolderChooser</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="178"/>
        <source>not a style folder the kiosk can read</source>
        <translation>不是本终端可读取的款式文件夹</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="179"/>
        <source>the style catalog is not open</source>
        <translation>款式库未打开</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="313"/>
        <source>Open a folder, then import it.</source>
        <translation>打开一个文件夹，然后导入。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="315"/>
        <source>No style here: a style folder holds nail.png (and style.json).</source>
        <translation>这里没有款式：款式文件夹里有 nail.png（和 style.json）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="317"/>
        <source>This is a style folder.</source>
        <translation>这是一个款式文件夹。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="319"/>
        <source>%n style folder(s) here.</source>
        <translation>
            <numerusform>这里有 %n 个款式文件夹。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="320"/>
        <source>Import %n style(s)</source>
        <translation>
            <numerusform>导入 %n 个款式</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="320"/>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="323"/>
        <source>USB drives and folders</source>
        <translation>U 盘和文件夹</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="324"/>
        <source>Styles found on USB drives</source>
        <translation>U 盘上找到的款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="326"/>
        <source>Looking at the drives…</source>
        <translation>正在查看 U 盘…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="328"/>
        <source>No style folders found on a USB drive.</source>
        <translation>U 盘上没有找到款式文件夹。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="329"/>
        <source>No USB drive found. Insert one, then tap USB drives.</source>
        <translation>没有找到 U 盘。插入 U 盘后，点“U 盘”。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="332"/>
        <source>a style</source>
        <translation>1 个款式</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="332"/>
        <source>%n style(s)</source>
        <translation>
            <numerusform>%n 个款式</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="334"/>
        <source>Drives and folders</source>
        <translation>磁盘和文件夹</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="336"/>
        <source>USB drive: %1</source>
        <translation>U 盘：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="337"/>
        <source>This kiosk&apos;s home folder</source>
        <translation>本机的主文件夹</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="343"/>
        <source>Files: %1</source>
        <translation>文件：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="346"/>
        <source>  ·  a style</source>
        <translation>  ·  款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="349"/>
        <source>This folder has no folders in it.</source>
        <translation>这个文件夹里没有子文件夹。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="398"/>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="399"/>
        <source>Import styles</source>
        <translation>导入款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="400"/>
        <source>Back</source>
        <translation>返回</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="401"/>
        <source>Up one folder</source>
        <translation>上一级文件夹</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="402"/>
        <source>USB drives</source>
        <translation>U 盘</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/folder_chooser.py" line="403"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>GeneratePanel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="224"/>
        <source>Your design is ready and on your nails now.</source>
        <translation>你的款式已生成，已经戴在你的指甲上啦！</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="253"/>
        <source>Tap a version to try it on.</source>
        <translation>点一个版本即可试戴。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="254"/>
        <source>No more versions could be made this time.</source>
        <translation>这次没能做出更多版本。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="371"/>
        <source>Describe your dream nails</source>
        <translation>描述你想要的美甲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="372"/>
        <source>e.g. milky white, shell flakes, ring finger accent</source>
        <translation>例如：奶白色、贝壳碎片、无名指跳色</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="373"/>
        <source>Create my design</source>
        <translation>生成我的款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="374"/>
        <source>Try it on again</source>
        <translation>再试戴一次</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="375"/>
        <source>Show me 2 more versions</source>
        <translation>再给我 2 个版本</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="376"/>
        <source>✦ Designed by you</source>
        <translation>✦ 你的专属设计</translation>
    </message>
</context>
<context>
    <name>GenerationController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="82"/>
        <source>Still designing your nails: one design at a time. It will be ready soon.</source>
        <translation>正在为你设计：一次只能设计一款，马上就好。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="107"/>
        <source>Sent! Designing your nails…</source>
        <translation>已提交！正在为你设计…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="130"/>
        <source>Making %1 more versions to pick from…</source>
        <translation>正在多做 %1 个版本供你挑选…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="152"/>
        <source>We could not find a colour, finish or pattern in “%1”. Try words like: %2</source>
        <translation>在“%1”里没有找到颜色、质感或图案。可以试试这些词：%2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="159"/>
        <source>We did not understand “%1”, so it is not in this design. Words we know: %2</source>
        <translation>没有看懂“%1”，所以这款设计里没有它。可以用这些词：%2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="191"/>
        <source>Trying again…</source>
        <translation>正在重试…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="193"/>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="231"/>
        <source>Designing your nails…</source>
        <translation>正在为你设计…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="213"/>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="214"/>
        <source>NailMirror</source>
        <translation>指尖魔镜</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="215"/>
        <source>Demo</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="217"/>
        <source>Snapshot · before/after</source>
        <translation>拍照 · 前后对比</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="217"/>
        <source>Cancel the photo</source>
        <translation>取消拍照</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="221"/>
        <source>Styles</source>
        <translation>款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="222"/>
        <source>AI design</source>
        <translation>AI 设计</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="89"/>
        <source>AI design is not available right now. Try a quick-pick style, or ask our staff.</source>
        <translation>AI 设计暂时不可用。请试试快捷款式，或咨询店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="92"/>
        <source>We have made all the AI designs we can today. Try a quick-pick style, or come back tomorrow.</source>
        <translation>今天的 AI 设计次数已用完。请试试快捷款式，或明天再来。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="95"/>
        <source>You have made the most AI designs for one visit. Try on the ones you made, or pick a style.</source>
        <translation>本次体验的 AI 设计次数已达上限。试戴已生成的款式，或从款式库中挑选吧。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="21"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="33"/>
        <source>We can&apos;t make that design. Please describe it differently.</source>
        <translation>这个款式无法生成，请换一种描述。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="23"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="35"/>
        <source>The design service can&apos;t be reached right now. Try a quick-pick style, or ask our staff.</source>
        <translation>暂时连不上设计服务。可以先试试现成款式，或咨询店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="26"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="38"/>
        <source>The design service is paused. Please ask our staff.</source>
        <translation>设计服务暂停中，请咨询店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="28"/>
        <source>Lots of designs are being made right now. Please try again in a minute.</source>
        <translation>现在设计的人有点多，请一分钟后再试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="40"/>
        <source>Tell us a colour or a pattern first.</source>
        <translation>先告诉我们颜色或图案吧。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="41"/>
        <source>Something went wrong making this design. Please try again.</source>
        <translation>生成款式时出了点问题，请再试一次。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="48"/>
        <source>The kiosk&apos;s storage is full, so no new design can be saved. Please ask our staff.</source>
        <translation>本机存储空间已满，新设计暂时无法保存。请联系店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="51"/>
        <source>The design service sent back something we could not use. Please try again.</source>
        <translation>设计服务返回的结果无法使用，请再试一次。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="54"/>
        <source>We lost contact while your design was being made. So you are not charged twice, we did not ask again: please ask our staff before trying again.</source>
        <translation>设计过程中与设计服务失去了联系。为避免重复收费，我们没有再次请求：再试之前请先询问店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="58"/>
        <source>Your design took too long and was stopped. Please try again, or try a quick pick.</source>
        <translation>设计用时太长，已停止。请再试一次，或试试快捷选项。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="65"/>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="66"/>
        <source>Working</source>
        <translation>处理中</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="67"/>
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="68"/>
        <source>Failed, will retry</source>
        <translation>失败，将重试</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="69"/>
        <source>Canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="70"/>
        <source>Dead letter</source>
        <translation>死信</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="77"/>
        <source>Draft</source>
        <translation>草稿</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="78"/>
        <source>Pending review</source>
        <translation>待审核</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="79"/>
        <source>Published</source>
        <translation>已上架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="80"/>
        <source>Rejected</source>
        <translation>已驳回</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="81"/>
        <source>Off shelf</source>
        <translation>下架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="103"/>
        <source>Offline designer (on this kiosk, free)</source>
        <translation>离线设计（本机生成，免费）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="104"/>
        <source>OpenAI image generation (online, paid)</source>
        <translation>OpenAI 图像生成（联网，付费）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="105"/>
        <source>Alibaba Cloud Tongyi Wanxiang (online, paid)</source>
        <translation>阿里云通义万相（联网，付费）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="113"/>
        <source>OpenAI</source>
        <translation>OpenAI</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="114"/>
        <source>Tongyi Wanxiang</source>
        <translation>通义万相</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="115"/>
        <source>Offline designer</source>
        <translation>离线设计</translation>
    </message>
</context>
<context>
    <name>MirrorLoop</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_loop.py" line="233"/>
        <source>The camera is not responding. Reconnecting…</source>
        <translation>摄像头没有响应，正在重新连接…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_loop.py" line="235"/>
        <source>Looking for a camera…</source>
        <translation>正在寻找摄像头…</translation>
    </message>
</context>
<context>
    <name>MirrorView</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="100"/>
        <source>Show this to our staff: %1</source>
        <translation>请向店员出示：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="272"/>
        <source>Place both hands flat inside the outlines</source>
        <translation>把双手平放在框内</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="273"/>
        <source>Place your hand flat inside the outline</source>
        <translation>把手平放在框内</translation>
    </message>
</context>
<context>
    <name>NailForm</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="29"/>
        <source>Round</source>
        <translation>圆形</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="30"/>
        <source>Square</source>
        <translation>方形</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="31"/>
        <source>Squoval</source>
        <translation>方圆形</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="32"/>
        <source>Almond</source>
        <translation>杏仁形</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="33"/>
        <source>Coffin</source>
        <translation>芭蕾/棺材形</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="34"/>
        <source>Stiletto</source>
        <translation>尖形</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="41"/>
        <source>Natural</source>
        <translation>自然</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="42"/>
        <source>Short</source>
        <translation>短</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="43"/>
        <source>Medium</source>
        <translation>中长</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="44"/>
        <source>Long</source>
        <translation>长</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="45"/>
        <source>Extra long</source>
        <translation>超长</translation>
    </message>
</context>
<context>
    <name>NailFormPicker</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="237"/>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="248"/>
        <source>Nail shape and length</source>
        <translation>甲型与长度</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/nail_form_picker.py" line="255"/>
        <source>Designer&apos;s choice: %1</source>
        <translation>设计师推荐：%1</translation>
    </message>
</context>
<context>
    <name>NoPinPanel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="91"/>
        <source>The staff pages are closed</source>
        <translation>员工页面尚未开放</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="92"/>
        <source>No staff PIN is set on this kiosk yet, and it cannot be set from this screen.</source>
        <translation>本终端还没有设置员工密码，且无法在此屏幕上设置。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="93"/>
        <source>Staff: set one on this kiosk PC with the command above, run as the account the kiosk runs under. Then tap ⋯ again.</source>
        <translation>店员：请在本终端电脑上，用运行终端程序的账户执行上面的命令设置密码，然后再点 ⋯。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/no_pin_panel.py" line="95"/>
        <source>Got it</source>
        <translation>知道了</translation>
    </message>
</context>
<context>
    <name>PinDialog</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="17"/>
        <source>Too many wrong PINs. Try again in {0} s.</source>
        <translation>PIN 错误次数过多，请 {0} 秒后再试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="19"/>
        <source>Too many wrong PINs. Try again in {0} min.</source>
        <translation>PIN 错误次数过多，请 {0} 分钟后再试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="81"/>
        <source>No staff PIN is set on this kiosk.</source>
        <translation>本终端还没有设置员工 PIN。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="84"/>
        <source>Wrong PIN.</source>
        <translation>PIN 错误。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="92"/>
        <source>Staff</source>
        <translation>店员</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="93"/>
        <source>Staff PIN</source>
        <translation>店员 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/pin_dialog.py" line="94"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>RequestRow</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="156"/>
        <source>Asked at %1</source>
        <translation>%1 提交</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="158"/>
        <source>Done</source>
        <translation>标记完成</translation>
    </message>
</context>
<context>
    <name>RequestsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="76"/>
        <source>The requests could not be read.</source>
        <translation>无法读取顾客选款。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="98"/>
        <source>%1 could not be marked done.</source>
        <translation>%1 未能标记为完成。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="100"/>
        <source>%1 done.</source>
        <translation>%1 已完成。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="128"/>
        <source>What customers chose today with &quot;I want this one&quot;, oldest first. The number is the one on the customer&apos;s screen. Mark a request done when you have taken it.</source>
        <translation>今天顾客点“我要做这款”选的款式，按先后排列。编号就是顾客屏幕上显示的编号。接单后请标记完成。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/requests_page.py" line="130"/>
        <source>No requests right now.</source>
        <translation>暂无顾客选款。</translation>
    </message>
</context>
<context>
    <name>ReviewPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="284"/>
        <source>Write the reason for rejecting first.</source>
        <translation>请先填写驳回原因。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="268"/>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="292"/>
        <source>Not done: %1</source>
        <translation>未完成：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="241"/>
        <source>no price</source>
        <translation>未定价</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="250"/>
        <source>Type a price first, or clear it.</source>
        <translation>请先输入价格，或清除价格。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="255"/>
        <source>Write the price as digits, such as 128 or 128.50.</source>
        <translation>请用数字填写价格，例如 128 或 128.50。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="271"/>
        <source>Price of %1: %2</source>
        <translation>%1 的价格：%2</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="295"/>
        <source>Done: %1 is now %2</source>
        <translation>已完成：%1 现为「%2」</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="321"/>
        <source>Importing %1 of %2: %3…</source>
        <translation>正在导入第 %1 个，共 %2 个：%3…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="329"/>
        <source>Imported %1 of %2 as drafts.</source>
        <translation>已导入 %1 个（共 %2 个），为草稿。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="331"/>
        <source>Not imported: %1</source>
        <translation>未导入：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="341"/>
        <source>Imported as %1 (draft).</source>
        <translation>已导入为 %1（草稿）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="345"/>
        <source>Import failed: %1</source>
        <translation>导入失败：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="361"/>
        <source>Submit</source>
        <translation>提交审核</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="361"/>
        <source>Approve</source>
        <translation>通过</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="361"/>
        <source>Reject</source>
        <translation>驳回</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="362"/>
        <source>Publish</source>
        <translation>上架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="362"/>
        <source>Off shelf</source>
        <translation>下架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="362"/>
        <source>Back to draft</source>
        <translation>退回草稿</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="365"/>
        <source>Reason (required to reject)</source>
        <translation>原因（驳回时必填）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="366"/>
        <source>Price (%1)</source>
        <translation>价格（%1）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="369"/>
        <source>e.g. 128 or 128.50</source>
        <translation>例如 128 或 128.50</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="370"/>
        <source>e.g. 1280</source>
        <translation>例如 1280</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="371"/>
        <source>Set price</source>
        <translation>设定价格</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="372"/>
        <source>Clear price</source>
        <translation>清除价格</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="375"/>
        <source>Import a style folder…</source>
        <translation>从文件夹导入款式…</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="307"/>
        <source>No key needed</source>
        <translation>无需密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="310"/>
        <source>No key set</source>
        <translation>未设置密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="334"/>
        <source>Saved. Restart the kiosk to use the new camera, picture or sharing settings.</source>
        <translation>已保存。重启本终端后，新的摄像头、画面或分享设置才会生效。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="335"/>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="356"/>
        <source>The PIN must be 4 to 8 digits.</source>
        <translation>PIN 须为 4 到 8 位数字。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="355"/>
        <source>That PIN was the published default: choose another.</source>
        <translation>这个 PIN 是曾经公开的默认 PIN，请换一个。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="248"/>
        <source>This camera is not connected.</source>
        <translation>这个摄像头没有连接。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="250"/>
        <source>Starting the camera…</source>
        <translation>正在打开摄像头…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="266"/>
        <source>This camera does not open: it may be unplugged or in use by another program.</source>
        <translation>这个摄像头打不开：可能已拔出，或正被其他程序使用。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="285"/>
        <source>No camera is connected. The mirror plays the demo video until one is plugged in.</source>
        <translation>没有连接摄像头。插上摄像头之前，镜子播放演示视频。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="290"/>
        <source>Automatic: the first camera found</source>
        <translation>自动：找到的第一个摄像头</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="292"/>
        <source>Camera %1</source>
        <translation>摄像头 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="293"/>
        <source>%1 (not connected)</source>
        <translation>%1（未连接）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="294"/>
        <source>No camera found.</source>
        <translation>没有找到摄像头。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="295"/>
        <source>%n camera(s) found.</source>
        <translation>
            <numerusform>找到 %n 个摄像头。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="296"/>
        <source>Camera preview</source>
        <translation>摄像头预览</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="297"/>
        <source>Look for cameras again</source>
        <translation>重新查找摄像头</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="337"/>
        <source>Prices already set keep their numbers: check them on the review page.</source>
        <translation>已设置的价格数字不变：请到审核页核对。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="362"/>
        <source>To change the PIN, type the current PIN first.</source>
        <translation>要修改 PIN，请先输入当前 PIN。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="384"/>
        <source>Camera</source>
        <translation>摄像头</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="384"/>
        <source>Resolution</source>
        <translation>分辨率</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="384"/>
        <source>Mirror the picture</source>
        <translation>镜像画面</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="385"/>
        <source>Idle reset after</source>
        <translation>无操作自动重置</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="385"/>
        <source>Hands tracked</source>
        <translation>同时识别的手数</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="385"/>
        <source>Delete snapshots after</source>
        <translation>快照保存期限</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="386"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="386"/>
        <source>Price currency</source>
        <translation>价格币种</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="387"/>
        <source>Store name</source>
        <translation>店名</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="388"/>
        <source>Design provider</source>
        <translation>设计服务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="386"/>
        <source>Send photos to phones</source>
        <translation>发送照片到手机</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="388"/>
        <source>New API key</source>
        <translation>新的 API 密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="388"/>
        <source>Current key</source>
        <translation>当前密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="389"/>
        <source>New staff PIN</source>
        <translation>新的店员 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="389"/>
        <source>Current staff PIN</source>
        <translation>当前员工 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="392"/>
        <source>Leave empty to keep the current key</source>
        <translation>留空则保留当前密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="393"/>
        <source>Needed only to change the PIN</source>
        <translation>仅修改 PIN 时需要</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="394"/>
        <source>Leave empty to keep the current PIN</source>
        <translation>留空则保留当前 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="397"/>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="398"/>
        <source>Restart the kiosk now</source>
        <translation>立即重启本终端</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="399"/>
        <source>Off keeps every photo on this kiosk</source>
        <translation>关闭时所有照片都只留在本终端</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="400"/>
        <source>On the take-home card and the phone&apos;s picture</source>
        <translation>显示在“带回家”卡片和手机图片上</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="401"/>
        <source> days</source>
        <translation> 天</translation>
    </message>
</context>
<context>
    <name>ShareController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="132"/>
        <source>Style code %1</source>
        <translation>款号 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="133"/>
        <source>Before</source>
        <translation>上色前</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="133"/>
        <source>After</source>
        <translation>上色后</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="134"/>
        <source>Show this picture to your nail artist</source>
        <translation>请把这张图给美甲师看</translation>
    </message>
</context>
<context>
    <name>SharePage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="118"/>
        <source>Take it home</source>
        <translation>带回家</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="119"/>
        <source>Back to my photo</source>
        <translation>返回我的照片</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="121"/>
        <source>Or photograph the style card: our staff find this style again from its code.</source>
        <translation>也可以拍下款式卡片：店员凭款号就能找到这款。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="123"/>
        <source>Scan the code with your phone&apos;s camera to save the photo. The link works on this store&apos;s Wi-Fi for %1 minutes, and ends when you leave the kiosk.</source>
        <translation>用手机相机扫码即可保存照片。链接需连接本店 Wi-Fi，%1 分钟内有效，您离开本机后即失效。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="126"/>
        <source>Sent to your phone. The link ends when you leave the kiosk.</source>
        <translation>已发送到您的手机。您离开本机后，链接即失效。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="127"/>
        <source>This kiosk is not on a network your phone can reach right now.</source>
        <translation>本机目前不在您的手机能访问的网络中。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="128"/>
        <source>Sending to a phone does not work on this kiosk right now.</source>
        <translation>本机暂时无法发送到手机。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="129"/>
        <source>This kiosk keeps photos to itself.</source>
        <translation>本机不会将照片发送出去。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="130"/>
        <source>The photo is still being saved: try again in a moment.</source>
        <translation>照片还在保存中，请稍后再试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_page.py" line="134"/>
        <source>Not opening? A guest Wi-Fi may keep your phone away from this kiosk: photograph the style card instead.</source>
        <translation>打不开？访客 Wi-Fi 可能无法访问本机，请改为拍下款式卡片。</translation>
    </message>
</context>
<context>
    <name>SnapshotGallery</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="274"/>
        <source>This photo cannot be shown.</source>
        <translation>这张照片无法显示。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="321"/>
        <source>Some photos could not be deleted; try again.</source>
        <translation>有些照片未能删除，请再试一次。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="335"/>
        <source>no style</source>
        <translation>未选款式</translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="348"/>
        <source>%n photo(s) kept on this kiosk</source>
        <translation>
            <numerusform>本终端保存了 %n 张照片</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="364"/>
        <source>Delete all %n photo(s) for good? This cannot be undone.</source>
        <translation>
            <numerusform>永久删除全部 %n 张照片？删除后无法恢复。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="366"/>
        <source>Yes, delete all</source>
        <translation>确定，全部删除</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="368"/>
        <source>Delete this photo for good? This cannot be undone.</source>
        <translation>永久删除这张照片？删除后无法恢复。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="369"/>
        <source>Yes, delete it</source>
        <translation>确定，删除</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="372"/>
        <source>Show after</source>
        <translation>看试戴后</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="372"/>
        <source>Show before</source>
        <translation>看试戴前</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="375"/>
        <source>Delete all</source>
        <translation>全部删除</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="376"/>
        <source>No photos are kept on this kiosk.</source>
        <translation>本终端没有保存的照片。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="377"/>
        <source>Back to all photos</source>
        <translation>返回全部照片</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="378"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/snapshot_gallery.py" line="379"/>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
</context>
<context>
    <name>SnapshotPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="287"/>
        <source>Before / after · %1</source>
        <translation>上色前后对比 · %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="287"/>
        <source>Before / after</source>
        <translation>上色前后对比</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="311"/>
        <source>Saved on this kiosk. Ask our staff for a copy.</source>
        <translation>照片已保存在本机，可向店员索取。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="312"/>
        <source>The photo could not be saved.</source>
        <translation>照片未能保存。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="327"/>
        <source>Before</source>
        <translation>上色前</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="327"/>
        <source>After</source>
        <translation>上色后</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="328"/>
        <source>Drag the line to compare</source>
        <translation>左右拖动中间的线，对比上色前后</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="329"/>
        <source>Back to the mirror</source>
        <translation>返回魔镜</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="330"/>
        <source>Perfecting your photo…</source>
        <translation>正在精修你的照片…</translation>
    </message>
</context>
<context>
    <name>StaffPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="76"/>
        <source>Staff</source>
        <translation>店员</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="77"/>
        <source>Back to the customer screen</source>
        <translation>返回顾客界面</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="78"/>
        <source>Close the kiosk</source>
        <translation>关闭终端</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="79"/>
        <source>Close the kiosk? The counter shows nothing until it is started again.</source>
        <translation>确定关闭本终端？重新启动之前，柜台屏幕将不显示任何内容。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="80"/>
        <source>Yes, close it</source>
        <translation>确定关闭</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="81"/>
        <source>Keep it running</source>
        <translation>继续运行</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="82"/>
        <source>Review</source>
        <translation>审核</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="82"/>
        <source>Tasks</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="82"/>
        <source>Requests</source>
        <translation>顾客选款</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="83"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="83"/>
        <source>Credits</source>
        <translation>积分</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="83"/>
        <source>Photos</source>
        <translation>照片</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="84"/>
        <source>Diagnostics</source>
        <translation>诊断</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="84"/>
        <source>Photo copies</source>
        <translation>照片副本</translation>
    </message>
</context>
<context>
    <name>StyleBrowser</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="643"/>
        <source>Search by name or style code</source>
        <translation>搜索款式名称或款号</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="668"/>
        <source>No styles match. Try another word or category.</source>
        <translation>没有符合的款式，换个关键词或分类试试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="645"/>
        <source>Accent nails (tap a finger)</source>
        <translation>跳色指甲（点选手指）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="646"/>
        <source>Save to my favourites</source>
        <translation>加入我的收藏</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="648"/>
        <source>Thumb</source>
        <translation>拇指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="648"/>
        <source>Index</source>
        <translation>食指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="648"/>
        <source>Middle</source>
        <translation>中指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="649"/>
        <source>Ring</source>
        <translation>无名指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="649"/>
        <source>Pinky</source>
        <translation>小指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="662"/>
        <source>Setting up the style catalog for the first time… one moment.</source>
        <translation>正在首次准备款式库……请稍候。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="664"/>
        <source>The style catalog could not be loaded. Please ask our staff.</source>
        <translation>款式库加载失败，请联系店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="666"/>
        <source>No favourites yet: tap ♡ beside a style you like.</source>
        <translation>还没有收藏：点喜欢的款式旁边的 ♡。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="672"/>
        <source>Tap a style…</source>
        <translation>点选另一款…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="673"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="681"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="683"/>
        <source>♥ Favourites (%1)</source>
        <translation>♥ 收藏（%1）</translation>
    </message>
</context>
<context>
    <name>StyleCard</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/style_card.py" line="107"/>
        <source>Show this card to your nail artist</source>
        <translation>请把这张卡给美甲师看</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/style_card.py" line="108"/>
        <source>Style code %1</source>
        <translation>款号 %1</translation>
    </message>
</context>
<context>
    <name>TaskMonitor</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="52"/>
        <source>AI design</source>
        <translation>AI 设计</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="53"/>
        <source>Photo render</source>
        <translation>照片渲染</translation>
    </message>
</context>
<context>
    <name>TaskMonitorPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="189"/>
        <source>open dead letters %1</source>
        <translation>未处理死信 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="219"/>
        <source>Not done: %1</source>
        <translation>未完成：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="221"/>
        <source>Done: %1</source>
        <translation>已完成：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="239"/>
        <source>All states</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="242"/>
        <source>All types</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="245"/>
        <source>Replay dead letter</source>
        <translation>重放死信</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="246"/>
        <source>Ignore dead letter</source>
        <translation>忽略死信</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="247"/>
        <source>Cancel task</source>
        <translation>取消任务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="248"/>
        <source>Prompt</source>
        <translation>描述</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="249"/>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="249"/>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="249"/>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
</context>
<context>
    <name>TryOnController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/tryon_controller.py" line="240"/>
        <source>This style can&apos;t be tried on right now.</source>
        <translation>这个款式暂时无法试戴。</translation>
    </message>
</context>
<context>
    <name>_TakeHomeButton</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="217"/>
        <source>Send to my phone</source>
        <translation>发送到我的手机</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/share/share_controller.py" line="217"/>
        <source>Style card</source>
        <translation>款式卡片</translation>
    </message>
</context>
<context>
    <name>_TicketLabel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="195"/>
        <source>Show this to our staff: %1</source>
        <translation>请向店员出示：%1</translation>
    </message>
</context>
<context>
    <name>_WantButton</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="168"/>
        <source>Sending to our staff…</source>
        <translation>正在发送给店员…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="169"/>
        <source>Not sent. Tap to try again</source>
        <translation>发送失败，点此重试</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/handoff.py" line="170"/>
        <source>I want this one</source>
        <translation>我要做这款</translation>
    </message>
</context>
</TS>
