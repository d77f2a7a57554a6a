import { Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, Matches } from 'class-validator';
import { ApiFunctionRoute, StoreScoped, Body } from '@app/core';
import { CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute } from '../charged.decorator.js';
import { OptionalChargedStore, ShortText, Text } from '../dto-fields.js';
import { GENERATE_BLOG_COVER, GenerateBlogCoverCommand } from './generate-blog-cover.command.js';
import { ApiGenerateBlogCover } from './generate-blog-cover.openapi.js';

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export class GenerateBlogCoverDto {
  @Text('Title written on the cover', 'Ten summer looks for the beach', 200)
  title!: string;

  @ShortText('Visual style', 'minimal')
  style!: string;

  @ApiProperty({ description: '1–5 hex colours, `#RGB` or `#RRGGBB`', example: ['#0ea5e9', '#f97316'], type: [String] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @Matches(HEX_COLOR, { each: true, message: 'each colour must be a hex code such as #0ea5e9 or #f90' })
  colors!: string[];

  @OptionalChargedStore()
  store_id?: string;
}

@ApiTags('ai')
@ApiFunctionRoute()
@Controller('functions/v1')
export class GenerateBlogCoverController {
  constructor(private readonly commands: CommandBus) {}

  @ChargedRoute(GENERATE_BLOG_COVER)
  @StoreScoped({ from: 'body', need: 'ai', customers: false, optional: true })
  @ApiGenerateBlogCover()
  async generateBlogCover(@Body() body: GenerateBlogCoverDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new GenerateBlogCoverCommand(call, body))) };
  }
}
