<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DiagnosticsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="70"/>
        <source>DISK FULL: %1 task result(s) wait to be saved. Free some space; they are saved then.</source>
        <translation>磁盘已满：%1 个任务结果等待保存。请清理磁盘空间，腾出空间后会自动保存。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="74"/>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="80"/>
        <source>OK, last synced %1</source>
        <translation>正常，上次同步 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="81"/>
        <source>Offline since %1; the kiosk keeps its catalog and retries</source>
        <translation>自 %1 起离线；本机保留现有款式并会自动重试</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="82"/>
        <source>HQ revoked this kiosk: enroll it again</source>
        <translation>总部已吊销本机授权：请重新注册</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="83"/>
        <source>HQ needs a newer kiosk version</source>
        <translation>总部要求更新本机软件版本</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="84"/>
        <source>Not enrolled with HQ</source>
        <translation>未在总部注册</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="88"/>
        <source>%1 download(s), %2 upload(s) pending</source>
        <translation>待下载 %1 个，待上传 %2 个</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="100"/>
        <source>Frames per second</source>
        <translation>帧率（FPS）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="100"/>
        <source>Frame source</source>
        <translation>画面来源</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="101"/>
        <source>Latency per stage</source>
        <translation>各阶段耗时</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="101"/>
        <source>Frames waiting (mirror)</source>
        <translation>待处理帧（魔镜）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="102"/>
        <source>Task queue</source>
        <translation>任务队列</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="102"/>
        <source>Free disk space</source>
        <translation>可用磁盘空间</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="103"/>
        <source>Saving results</source>
        <translation>结果保存</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/diagnostics_page.py" line="103"/>
        <source>Catalog sync (HQ)</source>
        <translation>款式同步（总部）</translation>
    </message>
</context>
<context>
    <name>GeneratePanel</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="154"/>
        <source>Your design is ready and on your nails now.</source>
        <translation>你的款式已生成，已经戴在你的指甲上啦！</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="209"/>
        <source>Describe your dream nails</source>
        <translation>描述你想要的美甲</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="210"/>
        <source>e.g. milky white, shell flakes, ring finger accent</source>
        <translation>例如：奶白色、贝壳碎片、无名指跳色</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="211"/>
        <source>Create my design</source>
        <translation>生成我的款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generate_panel.py" line="212"/>
        <source>Try it on again</source>
        <translation>再试戴一次</translation>
    </message>
</context>
<context>
    <name>GenerationController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="72"/>
        <source>Still designing your nails: one design at a time. It will be ready soon.</source>
        <translation>正在为你设计：一次只能设计一款，马上就好。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="92"/>
        <source>Sent! Designing your nails…</source>
        <translation>已提交！正在为你设计…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="100"/>
        <source>We could not find a colour, finish or pattern in “%1”. Try words like: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="107"/>
        <source>We did not understand “%1”, so it is not in this design. Words we know: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="134"/>
        <source>Trying again…</source>
        <translation>正在重试…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="136"/>
        <location filename="../../nailmirror_desktop/ui/generation/generation_controller.py" line="173"/>
        <source>Designing your nails…</source>
        <translation>正在为你设计…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="158"/>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="159"/>
        <source>NailMirror</source>
        <translation>指尖魔镜</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="160"/>
        <source>Demo</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="161"/>
        <source>Snapshot · before/after</source>
        <translation>拍照 · 前后对比</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="165"/>
        <source>Styles</source>
        <translation>款式</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/main_window.py" line="166"/>
        <source>AI design</source>
        <translation>AI 设计</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="18"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="30"/>
        <source>We can&apos;t make that design. Please describe it differently.</source>
        <translation>这个款式无法生成，请换一种描述。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="20"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="32"/>
        <source>The design service can&apos;t be reached right now. Try a quick-pick style, or ask our staff.</source>
        <translation>暂时连不上设计服务。可以先试试现成款式，或咨询店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="23"/>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="35"/>
        <source>The design service is paused. Please ask our staff.</source>
        <translation>设计服务暂停中，请咨询店员。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="25"/>
        <source>Lots of designs are being made right now. Please try again in a minute.</source>
        <translation>现在设计的人有点多，请一分钟后再试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="37"/>
        <source>Tell us a colour or a pattern first.</source>
        <translation>先告诉我们颜色或图案吧。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="38"/>
        <source>Something went wrong making this design. Please try again.</source>
        <translation>生成款式时出了点问题，请再试一次。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="45"/>
        <source>The kiosk&apos;s storage is full, so no new design can be saved. Please ask our staff.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="48"/>
        <source>The design service sent back something we could not use. Please try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="51"/>
        <source>We lost contact while your design was being made. So you are not charged twice, we did not ask again: please ask our staff before trying again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="55"/>
        <source>Your design took too long and was stopped. Please try again, or try a quick pick.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="62"/>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="63"/>
        <source>Working</source>
        <translation>处理中</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="64"/>
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="65"/>
        <source>Failed, will retry</source>
        <translation>失败，将重试</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="66"/>
        <source>Canceled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="67"/>
        <source>Dead letter</source>
        <translation>死信</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="74"/>
        <source>Draft</source>
        <translation>草稿</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="75"/>
        <source>Pending review</source>
        <translation>待审核</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="76"/>
        <source>Published</source>
        <translation>已上架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="77"/>
        <source>Rejected</source>
        <translation>已驳回</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/shell/messages.py" line="78"/>
        <source>Off shelf</source>
        <translation>下架</translation>
    </message>
</context>
<context>
    <name>MirrorLoop</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_loop.py" line="153"/>
        <source>The camera is not responding. Reconnecting…</source>
        <translation>摄像头没有响应，正在重新连接…</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_loop.py" line="155"/>
        <source>Looking for a camera…</source>
        <translation>正在寻找摄像头…</translation>
    </message>
</context>
<context>
    <name>MirrorView</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/mirror_view.py" line="168"/>
        <source>Place your hand here, nails facing the screen</source>
        <translation>请把手放在这里，指甲朝向屏幕</translation>
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
        <translation>这台设备还没有设置员工 PIN。</translation>
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
    <name>ReviewPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="165"/>
        <source>Write the reason for rejecting first.</source>
        <translation>请先填写驳回原因。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="173"/>
        <source>Not done: %1</source>
        <translation>未完成：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="176"/>
        <source>Done: %1 is now %2</source>
        <translation>已完成：%1 现为「%2」</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="192"/>
        <source>Choose a style folder</source>
        <translation>选择款式文件夹</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="198"/>
        <source>Imported as %1 (draft).</source>
        <translation>已导入为 %1（草稿）。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="202"/>
        <source>Import failed: %1</source>
        <translation>导入失败：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="218"/>
        <source>Submit</source>
        <translation>提交审核</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="218"/>
        <source>Approve</source>
        <translation>通过</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="218"/>
        <source>Reject</source>
        <translation>驳回</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="219"/>
        <source>Publish</source>
        <translation>上架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="219"/>
        <source>Off shelf</source>
        <translation>下架</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="219"/>
        <source>Back to draft</source>
        <translation>退回草稿</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="222"/>
        <source>Reason (required to reject)</source>
        <translation>原因（驳回时必填）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/review_page.py" line="223"/>
        <source>Import a style folder…</source>
        <translation>从文件夹导入款式…</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="121"/>
        <source>No key needed</source>
        <translation>无需密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="124"/>
        <source>No key set</source>
        <translation>未设置密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="149"/>
        <source>The PIN must be 4 to 8 digits.</source>
        <translation>PIN 须为 4 到 8 位数字。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="140"/>
        <source>Saved. Camera, resolution, mirroring and hands apply at the next start.</source>
        <translation>已保存。摄像头、分辨率、镜像和识别手数在下次启动时生效。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="148"/>
        <source>That PIN was the published default: choose another.</source>
        <translation>这个 PIN 是曾经公开的默认 PIN，请换一个。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="155"/>
        <source>To change the PIN, type the current PIN first.</source>
        <translation>要修改 PIN，请先输入当前 PIN。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="177"/>
        <source>Camera</source>
        <translation>摄像头</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="177"/>
        <source>Resolution</source>
        <translation>分辨率</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="177"/>
        <source>Mirror the picture</source>
        <translation>镜像画面</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="178"/>
        <source>Idle reset after</source>
        <translation>无操作自动重置</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="178"/>
        <source>Hands tracked</source>
        <translation>同时识别的手数</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="178"/>
        <source>Delete snapshots after</source>
        <translation>快照保存期限</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="179"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="179"/>
        <source>Design provider</source>
        <translation>设计服务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="179"/>
        <source>New API key</source>
        <translation>新的 API 密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="179"/>
        <source>Current key</source>
        <translation>当前密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="180"/>
        <source>New staff PIN</source>
        <translation>新的店员 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="180"/>
        <source>Current staff PIN</source>
        <translation>当前员工 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="183"/>
        <source>Leave empty to keep the current key</source>
        <translation>留空则保留当前密钥</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="184"/>
        <source>Needed only to change the PIN</source>
        <translation>仅修改 PIN 时需要</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="185"/>
        <source>Leave empty to keep the current PIN</source>
        <translation>留空则保留当前 PIN</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="186"/>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/settings_page.py" line="187"/>
        <source> days</source>
        <translation> 天</translation>
    </message>
</context>
<context>
    <name>SnapshotPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="165"/>
        <source>Before / after · %1</source>
        <translation>上色前后对比 · %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="165"/>
        <source>Before / after</source>
        <translation>上色前后对比</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="169"/>
        <source>Saved on this kiosk. Ask our staff for a copy.</source>
        <translation>照片已保存在本机，可向店员索取。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="170"/>
        <source>The photo could not be saved.</source>
        <translation>照片未能保存。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="183"/>
        <source>◀ Before</source>
        <translation>◀ 上色前</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="184"/>
        <source>After ▶</source>
        <translation>上色后 ▶</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/snapshot.py" line="185"/>
        <source>Back to the mirror</source>
        <translation>返回魔镜</translation>
    </message>
</context>
<context>
    <name>StaffDoor</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_door.py" line="67"/>
        <source>Staff</source>
        <translation>员工</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_door.py" line="68"/>
        <source>No staff PIN is set yet, so the staff pages stay closed.

Staff: set one on this kiosk PC with the command
    nailmirror staff set-pin
(run as the account the kiosk runs under). It cannot be set from this screen.</source>
        <translation>还没有设置员工 PIN，员工页面暂不开放。

员工请在这台设备的电脑上运行命令
    nailmirror staff set-pin
来设置（使用运行本程序的系统账户）。无法在此屏幕上设置。</translation>
    </message>
</context>
<context>
    <name>StaffPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="47"/>
        <source>Staff</source>
        <translation>店员</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="48"/>
        <source>Back to the customer screen</source>
        <translation>返回顾客界面</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="49"/>
        <source>Close the kiosk</source>
        <translation>关闭终端</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="50"/>
        <source>Review</source>
        <translation>审核</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="50"/>
        <source>Tasks</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="50"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/staff_page.py" line="51"/>
        <source>Diagnostics</source>
        <translation>诊断</translation>
    </message>
</context>
<context>
    <name>StyleBrowser</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="329"/>
        <source>Search by name or style code</source>
        <translation>搜索款式名称或款号</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="287"/>
        <source>No styles match. Try another word or category.</source>
        <translation>没有符合的款式，换个关键词或分类试试。</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="283"/>
        <source>Setting up the style catalog for the first time… one moment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="285"/>
        <source>The style catalog could not be loaded. Please ask our staff.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="331"/>
        <source>Accent nails (tap a finger)</source>
        <translation>跳色指甲（点选手指）</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="333"/>
        <source>Thumb</source>
        <translation>拇指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="333"/>
        <source>Index</source>
        <translation>食指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="333"/>
        <source>Middle</source>
        <translation>中指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="334"/>
        <source>Ring</source>
        <translation>无名指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="334"/>
        <source>Pinky</source>
        <translation>小指</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/style_browser.py" line="345"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
</context>
<context>
    <name>TaskMonitorPage</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="140"/>
        <source>open dead letters %1</source>
        <translation>未处理死信 %1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="162"/>
        <source>Not done: %1</source>
        <translation>未完成：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="164"/>
        <source>Done: %1</source>
        <translation>已完成：%1</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="182"/>
        <source>All states</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="185"/>
        <source>All types</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="186"/>
        <source>Replay dead letter</source>
        <translation>重放死信</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="187"/>
        <source>Ignore dead letter</source>
        <translation>忽略死信</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="188"/>
        <source>Cancel task</source>
        <translation>取消任务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="189"/>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="189"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="189"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="189"/>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="190"/>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../nailmirror_desktop/ui/staff/task_monitor.py" line="190"/>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
</context>
<context>
    <name>TryOnController</name>
    <message>
        <location filename="../../nailmirror_desktop/ui/tryon/tryon_controller.py" line="150"/>
        <source>This style can&apos;t be tried on right now.</source>
        <translation>这个款式暂时无法试戴。</translation>
    </message>
</context>
</TS>
