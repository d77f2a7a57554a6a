import { Module } from '@nestjs/common';

/** The five AI functions and their providers (issue 5). Wired into the app; not built yet. */
@Module({})
export class AiModule {}
