import { Module } from '@nestjs/common';

/** Social connect, publish, schedule and cancel (issue 6). Wired into the app; not built yet. */
@Module({})
export class SocialModule {}
